#pragma once
// Neural-network primitives: softmax, convolution, pooling, dropout and the
// fused softmax cross-entropy. Layouts are channels_last: NHWC inputs and
// HWIO kernels, as Keras stores them.
#include <array>
#include <optional>
#include <string>

#include "kiln/core/tensor.h"

namespace kiln {

/// exp(x - max) / sum(exp(x - max)) over `axis`, numerically stable.
Tensor softmax(const Tensor& x, int axis = -1);
/// x - logsumexp(x) over `axis`.
Tensor log_softmax(const Tensor& x, int axis = -1);
/// keras.ops.normalize: x / max(norm(x), epsilon) along `axis`, the norm of
/// integer `order` >= 1; epsilon defaults to Keras's backend epsilon (1e-7).
/// Order 2 computes x * min(rsqrt(sum(x²)), 1 / epsilon), as Keras does.
Tensor normalize(const Tensor& x, int axis = -1, int order = 2, std::optional<double> epsilon = std::nullopt);

/// Options of conv2d().
struct Conv2DOptions {
  std::array<int, 2> strides{1, 1};  ///< Vertical and horizontal strides.
  std::string padding = "valid";  ///< "valid" or "same"
  std::array<int, 2> dilation{1, 1};  ///< Vertical and horizontal dilation rates.
};
/// x: (N, H, W, C_in), kernel: (KH, KW, C_in, C_out) -> (N, OH, OW, C_out).
/// Computed as im2col + sgemm, or by a direct kernel for small patches (kh·kw·C_in <= 32).
/// "same" pads like TF (extra row/col at the end).
Tensor conv2d(const Tensor& x, const Tensor& kernel, Conv2DOptions options = {});
/// conv2d(x, kernel) + bias, then relu when asked, with the bias and activation
/// applied in the convolution's output pass (Conv2D uses it). bias: (C_out,).
Tensor conv2d_bias(const Tensor& x, const Tensor& kernel, const Tensor& bias, Conv2DOptions options = {},
                   bool relu = false);
/// Depthwise convolution (TensorFlow's depthwise_conv2d): x (N, H, W, C), kernel
/// (KH, KW, C, M) -> (N, OH, OW, C·M), where output channel c·M + m convolves input
/// channel c with kernel[..., c, m]. DepthwiseConv2D, SeparableConv2D and a Conv2D
/// with one input channel per group run on it.
Tensor depthwise_conv2d(const Tensor& x, const Tensor& kernel, Conv2DOptions options = {});

/// Options of max_pool2d() and avg_pool2d().
struct Pool2DOptions {
  std::array<int, 2> pool_size{2, 2};  ///< Window height and width.
  std::array<int, 2> strides{0, 0};  ///< 0 = pool_size
  std::string padding = "valid";  ///< "valid" or "same".
};
/// x: (N, H, W, C) -> (N, OH, OW, C).
Tensor max_pool2d(const Tensor& x, Pool2DOptions options = {});
/// Average over the valid (unpadded) elements of each window, as TF does.
Tensor avg_pool2d(const Tensor& x, Pool2DOptions options = {});

/// Inverted dropout: zero each element with probability `rate` and scale the
/// rest by 1/(1-rate). Uses the global generator (kiln::random::set_seed).
Tensor dropout(const Tensor& x, double rate);

/// x + bias over the last axis, optionally followed by relu, in one pass
/// (Dense and Conv2D use it). x: (..., C), bias: (C,).
Tensor bias_add(const Tensor& x, const Tensor& bias, bool relu = false);

/// What batch_norm_training() returns.
struct BatchNormResult {
  Tensor y;         ///< the normalized output, shaped like x
  Tensor mean;      ///< the batch mean per channel, (C,)
  Tensor variance;  ///< the batch (population) variance per channel, (C,)
};
/// Training-mode batch normalization over every axis but the last, as one op with its
/// own gradient (BatchNormalization uses it for channels-last inputs):
///   y = (x − mean) · rsqrt(variance + epsilon) · gamma + beta.
/// gamma and beta are (C,), or undefined tensors for no scale / no center. As with
/// TF's FusedBatchNorm, only y carries a gradient; mean and variance are for the
/// moving statistics.
BatchNormResult batch_norm_training(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon);

/// Inference-mode batch normalization over the last axis with given statistics (C,):
///   y = (x − mean) · rsqrt(variance + epsilon) · gamma + beta
/// (gamma / beta undefined for no scale / no center). One fused kernel where the
/// backend has one (the GPU's) and no tape is recording; otherwise the same
/// formula from differentiable ops. Every parameter must be (C,) of x's dtype and device.
Tensor batch_norm_inference(const Tensor& x, const Tensor& mean, const Tensor& variance, const Tensor& gamma,
                            const Tensor& beta, double epsilon);

/// Per-example -log softmax(logits)[label]: labels (N...) int, logits (N..., C) -> (N...).
/// Throws ValueError naming the bad label when a label is outside [0, C).
Tensor sparse_softmax_cross_entropy_with_logits(const Tensor& labels, const Tensor& logits);

}  // namespace kiln
