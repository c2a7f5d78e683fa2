#pragma once
// Conv3D: (batch, D, H, W, C) -> (batch, OD, OH, OW, filters) (channels_first:
// (batch, C, D, H, W)). kernel: (kd, kh, kw, C, filters), bias: (filters,).
// Per axis, "valid": O = floor((I - k') / stride) + 1, "same": O = ceil(I / stride),
// with k' = (k - 1)·dilation + 1. kernel_size, strides and dilation_rate take one
// int for every axis or three.
//   L::Conv3D(8, {3, 3, 3}, {.padding = "same", .activation = "relu"});
// Computed as kd 2D convolutions, one per kernel depth tap, over the matching
// input depth slices, summed; groups > 1 splits the channels.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/lora.h"
#include "kiln/nn/activations.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of Conv3D (Keras's `Conv3D` constructor arguments after filters and kernel_size).
struct Conv3DOptions {
  std::vector<int> strides = {1, 1, 1};  ///< Step on each of (D, H, W): one int for every axis or three.
  std::string padding = "valid";  ///< "valid" (no padding) or "same" (output size ceil(I / stride)).
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first" (batch, C, D, H, W).
  std::vector<int> dilation_rate = {1, 1, 1};  ///< Spacing between kernel taps per axis: one int or three.
  /// Channel groups: group g convolves input channels [g·C/G, (g+1)·C/G) into
  /// filters [g·F/G, (g+1)·F/G); the kernel is (kd, kh, kw, C / groups, filters).
  int groups = 1;
  std::string activation = "linear";  ///< Activation of the output; any name of kiln::activations::get.
  bool use_bias = true;  ///< Adds the learned bias (filters,).
  InitializerArg kernel_initializer = "glorot_uniform";  ///< Initializer of the kernel.
  InitializerArg bias_initializer = "zeros";  ///< Initializer of the bias.
  regularizers::RegularizerPtr kernel_regularizer = nullptr;  ///< Penalty on the kernel (none by default).
  regularizers::RegularizerPtr bias_regularizer = nullptr;  ///< Penalty on the bias (none by default).
  regularizers::RegularizerPtr activity_regularizer = nullptr;  ///< Penalty on the layer's output (none by default).
  constraints::ConstraintPtr kernel_constraint = nullptr;  ///< Constraint on the kernel (none by default).
  constraints::ConstraintPtr bias_constraint = nullptr;  ///< Constraint on the bias (none by default).
  std::optional<int> lora_rank;  ///< Enables LoRA of this rank when the layer is built (kiln/layers/lora.h).
  std::optional<double> lora_alpha;  ///< LoRA's scale numerator (the delta is scaled by lora_alpha / lora_rank).
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(Conv3DOptions, strides, padding, data_format, dilation_rate, groups, activation, use_bias,
              kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
              kernel_constraint, bias_constraint, lora_rank, lora_alpha)
};

/// 3D convolution then bias and activation (Keras's `Conv3D`): (batch, D, H, W, C) ->
/// (batch, OD, OH, OW, filters) in channels_last; kernel (kd, kh, kw, C / groups, filters),
/// bias (filters,). Per axis, "valid": O = floor((I - k') / stride) + 1, "same": O =
/// ceil(I / stride), k' = (k - 1)·dilation + 1. Defaults: strides 1, "valid", no activation.
/// Users create it through the handle `kiln::layers::Conv3D(filters, kernel_size, {...})`.
class Conv3DImpl : public LoraLayer {
 public:
  using Options = Conv3DOptions;  ///< The options struct the constructor takes.
  /// `filters` output channels; `kernel_size` one int for every axis or three.
  Conv3DImpl(int64_t filters, std::vector<int> kernel_size, Conv3DOptions options = {});
  std::string class_name() const override { return "Conv3D"; }
  Config get_config() const override;
  KILN_ARGS(Conv3DImpl, filters_, kernel_size_)
  const Conv3DOptions& options() const { return o_; }  ///< The options this layer was created with.
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  /// The kernel that LoRA adapts, with its regularizer and constraint.
  LoraBase lora_base() const override;
  using Layer::build;
  using Layer::call;

 private:
  int64_t filters_;
  std::vector<int> kernel_size_;
  Conv3DOptions o_;
  activations::Activation activation_;
  Variable kernel_, bias_;
};

KILN_LAYER_HANDLE(Conv3D);

}  // namespace kiln::layers
