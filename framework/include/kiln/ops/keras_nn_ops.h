#pragma once
// keras.ops' neural-network functions under their Keras names, with Keras's
// argument conventions and defaults (the JAX backend's semantics):
//   conv, depthwise_conv, separable_conv, conv_transpose   (1D, 2D and 3D)
//   max_pool, average_pool, adaptive_*_pool                (1D, 2D and 3D)
//   batch_normalization, layer_normalization, rms_normalization
//   binary_crossentropy, categorical_crossentropy, sparse_categorical_crossentropy
//   multi_hot, psnr, sparsemax, polar, fold, unfold, dot_product_attention
//   ctc_loss, ctc_decode
// Spatial inputs are (batch, *spatial, channels) for data_format "channels_last"
// (the default) or (batch, channels, *spatial) for "channels_first"; kernels are
// laid out as Keras's ops take them whatever the data format:
//   conv            (*kernel_size, in_channels / groups, out_channels)
//   depthwise_conv  (*kernel_size, in_channels, channel_multiplier)
//   conv_transpose  (*kernel_size, out_channels, in_channels)
// Example:
//   Tensor y = kiln::conv(x, kernel, {.strides = {2}, .padding = "same"});
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// keras.ops.conv / depthwise_conv / separable_conv's keyword arguments. strides and
/// dilation_rate hold one value for every spatial axis, or one value per spatial axis.
struct ConvArgs {
  std::vector<int64_t> strides{1};         ///< Step of the window along each spatial axis.
  std::string padding = "valid";           ///< "valid" (none) or "same" (TF's split: the extra zero after).
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first".
  std::vector<int64_t> dilation_rate{1};   ///< Spacing of the kernel taps.
};

/// keras.ops.conv: an N-D convolution (N = inputs.rank() - 2 in 1..3). When the
/// input has G times the kernel's in_channels, the channels split into G groups
/// (JAX's feature_group_count), each with out_channels / G kernels.
Tensor conv(const Tensor& inputs, const Tensor& kernel, const ConvArgs& args = {});
/// keras.ops.depthwise_conv: kernel (*kernel_size, C, M) -> C·M output channels, output
/// channel c·M + m convolving input channel c with kernel[..., c, m].
Tensor depthwise_conv(const Tensor& inputs, const Tensor& kernel, const ConvArgs& args = {});
/// keras.ops.separable_conv: depthwise_conv with `args`, then a 1x1 conv with
/// pointwise_kernel (1, ..., C·M, out_channels).
Tensor separable_conv(const Tensor& inputs, const Tensor& depthwise_kernel, const Tensor& pointwise_kernel,
                      const ConvArgs& args = {});

/// keras.ops.conv_transpose's keyword arguments.
struct ConvTransposeArgs {
  std::vector<int64_t> strides{1};         ///< One value for every spatial axis, or one per axis.
  std::string padding = "valid";           ///< "valid" or "same".
  std::optional<std::vector<int64_t>> output_padding;  ///< Extra length at the end of each axis; none: inferred.
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first".
  std::vector<int64_t> dilation_rate{1};   ///< Spacing of the kernel taps.
};
/// keras.ops.conv_transpose (jax.lax.conv_transpose with transpose_kernel, as Keras's
/// JAX backend calls it): kernel (*kernel_size, out_channels, in_channels). Along an
/// axis of length L, with k' = (k - 1)·dilation + 1, the output length is L·stride +
/// max(k' - stride, 0) ("valid") or L·stride ("same") without output_padding, else
/// (L - 1)·stride + k' - 2·(k' / 2 when "same") + output_padding.
Tensor conv_transpose(const Tensor& inputs, const Tensor& kernel, const ConvTransposeArgs& args = {});
/// The output length of conv_transpose along one axis (Keras's
/// compute_conv_transpose_output_shape); a negative (unknown) length stays unknown.
int64_t conv_transpose_output_length(int64_t length, int64_t kernel, int64_t stride, int64_t dilation,
                                     const std::string& padding, std::optional<int64_t> output_padding);

/// keras.ops.max_pool / average_pool's keyword arguments after pool_size.
struct PoolArgs {
  std::vector<int64_t> strides;            ///< Empty: pool_size. One value or one per axis.
  std::string padding = "valid";           ///< "valid" or "same".
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first".
};
/// keras.ops.max_pool: the maximum of each window ("same" pads with -inf). pool_size
/// holds one value for every spatial axis or one per axis.
Tensor max_pool(const Tensor& inputs, const std::vector<int64_t>& pool_size, const PoolArgs& args = {});
/// keras.ops.average_pool: the mean of each window's real (unpadded) elements.
Tensor average_pool(const Tensor& inputs, const std::vector<int64_t>& pool_size, const PoolArgs& args = {});

/// keras.ops.adaptive_average_pool: each spatial axis of length n cut into
/// output_size bins, bin i covering [floor(i·n / out), ceil((i + 1)·n / out)), and
/// averaged. output_size: one value for every spatial axis or one per axis.
Tensor adaptive_average_pool(const Tensor& inputs, const std::vector<int64_t>& output_size,
                             const std::string& data_format = "channels_last");
/// keras.ops.adaptive_max_pool: the maximum of each adaptive_average_pool bin.
Tensor adaptive_max_pool(const Tensor& inputs, const std::vector<int64_t>& output_size,
                         const std::string& data_format = "channels_last");

/// keras.ops.batch_normalization: (x - mean) · rsqrt(variance + epsilon) · scale + offset,
/// where mean, variance, offset and scale are 1-D of x.shape[axis] (offset / scale
/// undefined tensors for none).
Tensor batch_normalization(const Tensor& x, const Tensor& mean, const Tensor& variance, int axis,
                           const Tensor& offset = {}, const Tensor& scale = {}, double epsilon = 1e-3);
/// keras.ops.layer_normalization: (x - mean) · rsqrt(var + epsilon) · gamma + beta with
/// the moments over `axis` (one or more axes); gamma / beta undefined for none, shaped
/// like the normalized axes. epsilon defaults to 1e-7. Float32 at least inside; the
/// result has x's dtype.
Tensor layer_normalization(const Tensor& x, const Tensor& gamma = {}, const Tensor& beta = {},
                           const std::vector<int>& axis = {-1}, std::optional<double> epsilon = std::nullopt);
/// keras.ops.rms_normalization: x · rsqrt(mean(x², axis) + epsilon) · scale (scale
/// undefined for none); epsilon defaults to 1e-7.
Tensor rms_normalization(const Tensor& x, const Tensor& scale = {}, const std::vector<int>& axis = {-1},
                         std::optional<double> epsilon = std::nullopt);

/// keras.ops.binary_crossentropy: element-wise -(t·log(p) + (1-t)·log(1-p)), p clipped
/// to [1e-7, 1 - 1e-7]; from logits, -(t·log_sigmoid(o) + (1-t)·log_sigmoid(-o)).
/// target and output must have one shape.
Tensor binary_crossentropy(const Tensor& target, const Tensor& output, bool from_logits = false);
/// keras.ops.categorical_crossentropy: -sum(target · log p, axis), p = output over its sum
/// clipped to [1e-7, 1 - 1e-7], or log_softmax(output) from logits. One shape, rank >= 1.
Tensor categorical_crossentropy(const Tensor& target, const Tensor& output, bool from_logits = false, int axis = -1);
/// keras.ops.sparse_categorical_crossentropy: as categorical_crossentropy with integer
/// target = output's shape without `axis` (a trailing axis of 1 is dropped).
Tensor sparse_categorical_crossentropy(const Tensor& target, const Tensor& output, bool from_logits = false,
                                       int axis = -1);

/// keras.ops.multi_hot: for integer inputs (batch, n) or (n,), the union of the one-hot
/// vectors of each row: (batch, num_classes) or (num_classes,); out-of-range ids are
/// ignored. dtype defaults to float32.
Tensor multi_hot(const Tensor& inputs, int64_t num_classes, int axis = -1, DType dtype = DType::float32);
/// keras.ops.psnr: 20·log10(max_val) - 10·log10(mean((x1 - x2)²)), a scalar.
Tensor psnr(const Tensor& x1, const Tensor& x2, double max_val);

/// keras.ops.ctc_loss: the CTC negative log-likelihood of each target sequence.
/// target (B, N) integer labels, the first target_length[b] of row b used; output
/// (B, T, K) logits (log_softmax is applied), the first output_length[b] steps used;
/// mask_index: the blank class. Returns (B,), differentiable in output.
Tensor ctc_loss(const Tensor& target, const Tensor& output, const Tensor& target_length, const Tensor& output_length,
                int64_t mask_index = 0);

/// keras.ops.ctc_decode's keyword arguments.
struct CtcDecodeArgs {
  std::string strategy = "greedy";  ///< "greedy" or "beam_search".
  int64_t beam_width = 100;         ///< Beams kept per step ("beam_search").
  int64_t top_paths = 1;            ///< Paths returned ("beam_search").
  bool merge_repeated = true;       ///< Collapse repeated classes ("greedy").
  std::optional<int64_t> mask_index = 0;  ///< The blank class; none: the last class.
};
/// keras.ops.ctc_decode: inputs (B, T, K) scores, sequence_lengths (B,) -> (paths,
/// scores). Greedy: paths (1, B, T) int32, the best class per step with blanks (and,
/// with merge_repeated, repeats) removed and the rest left-aligned, -1 after; scores
/// (B, 1), minus the sum of the best raw scores. Beam search (over log_softmax of the
/// inputs): paths (top_paths, B, T) and their log-probabilities (B, top_paths).
std::pair<Tensor, Tensor> ctc_decode(const Tensor& inputs, const Tensor& sequence_lengths, const CtcDecodeArgs& args = {});

/// keras.ops.unfold / fold's arguments after kernel_size: one value for both axes or two.
struct FoldArgs {
  std::vector<int64_t> dilation{1};  ///< Spacing of the kernel taps.
  std::vector<int64_t> padding{0};   ///< Zeros added on both sides of each axis.
  std::vector<int64_t> stride{1};    ///< Step between blocks.
};
/// keras.ops.unfold (im2col): the sliding kernel_size blocks of an NCHW image,
/// (N, C, H, W) -> (N, C·kH·kW, L) with L blocks, channel-major ((c, i, j) order).
Tensor unfold(const Tensor& x, const std::vector<int64_t>& kernel_size, const FoldArgs& args = {});
/// keras.ops.fold (col2im), unfold's adjoint: blocks (N, C·kH·kW, L) summed back into
/// an (N, C, *output_size) image, overlapping entries added.
Tensor fold(const Tensor& x, const std::vector<int64_t>& output_size, const std::vector<int64_t>& kernel_size,
            const FoldArgs& args = {});

/// keras.ops.sparsemax along `axis`, by Keras's formula: with the values sorted
/// descending (s) and their running sums (c), the support is s_j > (c_j − 1) / j,
/// τ = (Σ_{j in support} c_j − 1) / |support|, and the result max(x − τ, 0).
Tensor sparsemax(const Tensor& x, int axis = -1);
/// keras.ops.polar: the complex numbers abs_·(cos(angle) + i·sin(angle)), as their
/// real and imaginary parts (Kiln's complex tensors are pairs, see ComplexPair).
std::pair<Tensor, Tensor> polar(const Tensor& abs_, const Tensor& angle);

/// keras.ops.dot_product_attention's keyword arguments.
struct AttentionArgs {
  Tensor bias;                 ///< Added to the logits (B, N, T, S), broadcast; undefined for none.
  Tensor mask;                 ///< bool, broadcast to (B, N, T, S): false masks a logit; undefined for none.
  std::optional<double> scale;  ///< Default 1 / sqrt(head_dim).
  bool is_causal = false;      ///< Query t sees keys s <= t.
  std::optional<bool> flash_attention;  ///< None or false (CPU Kiln has no flash kernel); true is refused.
};
/// keras.ops.dot_product_attention: query (B, T, N, H), key and value (B, S, K, H) with N
/// a multiple of K (grouped heads) -> (B, T, N, H). Masked logits become -0.7·max(float32)
/// before the softmax, as JAX does. Only 4-D inputs, as in Keras.
Tensor dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                             const AttentionArgs& args = {});

}  // namespace kiln
