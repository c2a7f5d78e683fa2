#pragma once
// Conv1DTranspose and Conv2DTranspose (transposed convolution, "deconvolution"):
// the gradient of a convolution with respect to its input, as a layer.
//   L::Conv2DTranspose(8, 3, {.strides = 2})   (batch, H, W, C) -> (batch, OH, OW, 8)
//   kernel: (*kernel_size, filters, C) (Keras's layout), bias: (filters,)
// Per axis, with k' = (k - 1)·dilation + 1 and no output_padding:
//   "valid": O = I·stride + max(k' - stride, 0);  "same": O = I·stride
// and with output_padding p: O = (I - 1)·stride + k' - 2·(k' / 2 if "same" else 0) + p.
// Computed as Keras's JAX backend does: the input dilated by the stride, padded,
// and convolved with the spatially flipped kernel.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/layers/common.h"
#include "kiln/nn/activations.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of Conv1DTranspose and Conv2DTranspose (Keras's constructor arguments after
/// filters and kernel_size).
template <int N>
struct ConvTransposeOptions {
  SpatialSize<N> strides = 1;  ///< Stride of the convolution this transposes (the upsampling factor).
  std::string padding = "valid";  ///< "valid" or "same"; see ConvTransposeImpl for the output sizes.
  std::optional<SpatialSize<N>> output_padding;  ///< Extra size on each axis, each < its stride; none: inferred.
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first".
  SpatialSize<N> dilation_rate = 1;  ///< Spacing between kernel taps (1: a dense kernel).
  std::string activation = "linear";  ///< Activation of the output; any name of kiln::activations::get.
  bool use_bias = true;  ///< Adds the learned bias (filters,).
  InitializerArg kernel_initializer = "glorot_uniform";  ///< Initializer of the kernel.
  InitializerArg bias_initializer = "zeros";  ///< Initializer of the bias.
  regularizers::RegularizerPtr kernel_regularizer = nullptr;  ///< Penalty on the kernel (none by default).
  regularizers::RegularizerPtr bias_regularizer = nullptr;  ///< Penalty on the bias (none by default).
  regularizers::RegularizerPtr activity_regularizer = nullptr;  ///< Penalty on the layer's output (none by default).
  constraints::ConstraintPtr kernel_constraint = nullptr;  ///< Constraint on the kernel (none by default).
  constraints::ConstraintPtr bias_constraint = nullptr;  ///< Constraint on the bias (none by default).
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ConvTransposeOptions, strides, padding, output_padding, data_format, dilation_rate, activation, use_bias,
              kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
              kernel_constraint, bias_constraint)
};

/// Transposed convolution ("deconvolution"), the gradient of a convolution with respect
/// to its input (Keras's `Conv1DTranspose` for N = 1, `Conv2DTranspose` for N = 2):
/// (batch, *spatial, C) -> (batch, *out, filters); kernel (*kernel_size, filters, C).
/// Per axis, k' = (k - 1)·dilation + 1: "valid" O = I·stride + max(k' - stride, 0),
/// "same" O = I·stride; with output_padding p, O = (I - 1)·stride + k' - 2·(k' / 2 if
/// "same" else 0) + p. Defaults: strides 1, "valid", no activation. Users create it
/// through the handles `kiln::layers::Conv1DTranspose` / `Conv2DTranspose(filters, kernel_size, {...})`.
template <int N>
class ConvTransposeImpl : public Layer {
 public:
  using Options = ConvTransposeOptions<N>;  ///< The options struct the constructor takes.
  /// `filters` output channels; `kernel_size` the window (an int, or (kh, kw) in 2D).
  ConvTransposeImpl(int64_t filters, SpatialSize<N> kernel_size, Options options = {});
  std::string class_name() const override { return N == 1 ? "Conv1DTranspose" : "Conv2DTranspose"; }
  Config get_config() const override;
  KILN_ARGS(ConvTransposeImpl, filters_, kernel_size_)
  const Options& options() const { return o_; }  ///< The options this layer was created with.
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  int64_t filters_;
  SpatialSize<N> kernel_size_;
  Options o_;
  activations::Activation activation_;
  Variable kernel_, bias_;
};

extern template class ConvTransposeImpl<1>;
extern template class ConvTransposeImpl<2>;
using Conv1DTransposeImpl = ConvTransposeImpl<1>;  ///< Keras's Conv1DTranspose.
using Conv2DTransposeImpl = ConvTransposeImpl<2>;  ///< Keras's Conv2DTranspose.
KILN_LAYER_HANDLE(Conv1DTranspose);
KILN_LAYER_HANDLE(Conv2DTranspose);

}  // namespace kiln::layers
