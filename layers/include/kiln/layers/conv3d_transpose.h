#pragma once
// Conv3DTranspose: the transposed ("deconvolution") counterpart of Conv3D.
//   L::Conv3DTranspose(8, {3, 3, 3}, {.strides = {2, 2, 2}})
//   (batch, D, H, W, C) -> (batch, OD, OH, OW, 8)   (channels_first: (batch, C, D, H, W))
//   kernel: (kd, kh, kw, filters, C) (Keras's layout), bias: (filters,)
// Per axis, with k' = (k - 1)·dilation + 1 and no output_padding:
//   "valid": O = I·stride + max(k' - stride, 0);  "same": O = I·stride
// and with output_padding p (each p < its stride):
//   O = (I - 1)·stride + k' - 2·(k' / 2 if "same" else 0) + p.
// kernel_size, strides, output_padding and dilation_rate take one int for every
// axis or three. As in Keras there are no channel groups, and strides > 1 cannot
// be combined with dilation_rate > 1.
// Computed as Keras's JAX backend does: the input dilated by the stride, padded,
// and convolved (stride 1) with the spatially flipped kernel, the depth axis as a
// sum of 2D convolutions over the kernel's depth taps.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/activations.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of Conv3DTranspose (Keras's constructor arguments after filters and kernel_size).
struct Conv3DTransposeOptions {
  std::vector<int> strides = {1, 1, 1};  ///< Stride of the convolution it transposes: one int for every axis or three.
  std::string padding = "valid";  ///< "valid" or "same"; see Conv3DTransposeImpl for the output sizes.
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first" (batch, C, D, H, W).
  /// Extra size on each axis (each < its stride); none: inferred (see Conv3DTransposeImpl).
  std::optional<std::vector<int>> output_padding;
  std::vector<int> dilation_rate = {1, 1, 1};  ///< Spacing between kernel taps per axis; not with strides > 1.
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
  KILN_FIELDS(Conv3DTransposeOptions, strides, padding, data_format, output_padding, dilation_rate, activation,
              use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
              activity_regularizer, kernel_constraint, bias_constraint)
};

/// Transposed 3D convolution, the counterpart of Conv3D (Keras's `Conv3DTranspose`):
/// (batch, D, H, W, C) -> (batch, OD, OH, OW, filters); kernel (kd, kh, kw, filters, C),
/// bias (filters,). Per axis, k' = (k - 1)·dilation + 1: "valid" O = I·stride +
/// max(k' - stride, 0), "same" O = I·stride; with output_padding p, O = (I - 1)·stride +
/// k' - 2·(k' / 2 if "same" else 0) + p. No channel groups, as in Keras.
/// Users create it through the handle `kiln::layers::Conv3DTranspose(filters, kernel_size, {...})`.
class Conv3DTransposeImpl : public Layer {
 public:
  using Options = Conv3DTransposeOptions;  ///< The options struct the constructor takes.
  /// `filters` output channels; `kernel_size` one int for every axis or three.
  Conv3DTransposeImpl(int64_t filters, std::vector<int> kernel_size, Conv3DTransposeOptions options = {});
  std::string class_name() const override { return "Conv3DTranspose"; }
  Config get_config() const override;
  KILN_ARGS(Conv3DTransposeImpl, filters_, kernel_size_)
  const Conv3DTransposeOptions& options() const { return o_; }  ///< The options this layer was created with.
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  int64_t filters_;
  std::vector<int> kernel_size_;
  Conv3DTransposeOptions o_;
  activations::Activation activation_;
  Variable kernel_, bias_;
};

KILN_LAYER_HANDLE(Conv3DTranspose);

}  // namespace kiln::layers
