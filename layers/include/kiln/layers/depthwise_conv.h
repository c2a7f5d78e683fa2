#pragma once
// Depthwise and separable convolutions, 1D and 2D (channels_last shown):
//   DepthwiseConv2D(3)                   (batch, H, W, C) -> (batch, OH, OW, C · depth_multiplier):
//       each input channel c convolved with its own kernel[..., c, m]; output channel c·M + m
//       kernel: (kh, kw, C, depth_multiplier), bias: (C · depth_multiplier,)
//   SeparableConv2D(16, 3)               the depthwise conv (strides, padding, dilation), then a 1x1
//       conv to `filters`: depthwise_kernel (kh, kw, C, M), pointwise_kernel (1, 1, C·M, filters), bias
//   DepthwiseConv1D(3), SeparableConv1D(16, 3) the same over (batch, steps, C).
// padding: "valid" or "same". Keras's argument names, defaults and weight names.
#include <cstdint>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/layers/common.h"
#include "kiln/nn/activations.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of DepthwiseConv1D / DepthwiseConv2D (Keras's constructor arguments after kernel_size).
template <int N>
struct DepthwiseConvOptions {
  SpatialSize<N> strides = 1;  ///< Step of the window on each spatial axis.
  std::string padding = "valid";  ///< "valid" or "same".
  int depth_multiplier = 1;  ///< Output channels per input channel (M).
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first".
  SpatialSize<N> dilation_rate = 1;  ///< Spacing between kernel taps (1: a dense kernel).
  std::string activation = "linear";  ///< Activation of the output; any name of kiln::activations::get.
  bool use_bias = true;  ///< Adds the learned bias (C·M,).
  InitializerArg depthwise_initializer = "glorot_uniform";  ///< Initializer of the depthwise kernel.
  InitializerArg bias_initializer = "zeros";  ///< Initializer of the bias.
  regularizers::RegularizerPtr depthwise_regularizer = nullptr;  ///< Penalty on the depthwise kernel (none by default).
  regularizers::RegularizerPtr bias_regularizer = nullptr;  ///< Penalty on the bias (none by default).
  regularizers::RegularizerPtr activity_regularizer = nullptr;  ///< Penalty on the layer's output (none by default).
  constraints::ConstraintPtr depthwise_constraint = nullptr;  ///< Constraint on the depthwise kernel (none by default).
  constraints::ConstraintPtr bias_constraint = nullptr;  ///< Constraint on the bias (none by default).
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(DepthwiseConvOptions, depth_multiplier, strides, padding, data_format, dilation_rate, activation,
              use_bias, depthwise_initializer, bias_initializer, depthwise_regularizer, bias_regularizer,
              activity_regularizer, depthwise_constraint, bias_constraint)
};

/// Options of SeparableConv1D / SeparableConv2D (Keras's constructor arguments after
/// filters and kernel_size).
template <int N>
struct SeparableConvOptions {
  SpatialSize<N> strides = 1;  ///< Step of the depthwise window on each spatial axis.
  std::string padding = "valid";  ///< "valid" or "same".
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first".
  SpatialSize<N> dilation_rate = 1;  ///< Spacing between depthwise kernel taps.
  int depth_multiplier = 1;  ///< Depthwise output channels per input channel (M).
  std::string activation = "linear";  ///< Activation of the output; any name of kiln::activations::get.
  bool use_bias = true;  ///< Adds the learned bias (filters,).
  InitializerArg depthwise_initializer = "glorot_uniform";  ///< Initializer of the depthwise kernel.
  InitializerArg pointwise_initializer = "glorot_uniform";  ///< Initializer of the pointwise kernel.
  InitializerArg bias_initializer = "zeros";  ///< Initializer of the bias.
  regularizers::RegularizerPtr depthwise_regularizer = nullptr;  ///< Penalty on the depthwise kernel (none by default).
  regularizers::RegularizerPtr pointwise_regularizer = nullptr;  ///< Penalty on the pointwise kernel (none by default).
  regularizers::RegularizerPtr bias_regularizer = nullptr;  ///< Penalty on the bias (none by default).
  regularizers::RegularizerPtr activity_regularizer = nullptr;  ///< Penalty on the layer's output (none by default).
  constraints::ConstraintPtr depthwise_constraint = nullptr;  ///< Constraint on the depthwise kernel (none by default).
  constraints::ConstraintPtr pointwise_constraint = nullptr;  ///< Constraint on the pointwise kernel (none by default).
  constraints::ConstraintPtr bias_constraint = nullptr;  ///< Constraint on the bias (none by default).
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(SeparableConvOptions, depth_multiplier, strides, padding, data_format, dilation_rate, activation,
              use_bias, depthwise_initializer, pointwise_initializer, bias_initializer, depthwise_regularizer,
              pointwise_regularizer, bias_regularizer, activity_regularizer, depthwise_constraint,
              pointwise_constraint, bias_constraint)
};

/// The depthwise part both share: checks, output shape, and the per-channel convolution.
template <int N>
class DepthwiseBase : public Layer {
 public:
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

 protected:
  /// `cls` names the layer in error messages; `base` holds the base-layer options; the rest
  /// are the depthwise convolution's arguments.
  DepthwiseBase(std::string cls, SpatialSize<N> kernel_size, LayerOptions base, SpatialSize<N> strides,
                std::string padding, std::string data_format, SpatialSize<N> dilation, int depth_multiplier,
                const std::string& activation);
  /// channels_last x (batch, *spatial, C) with a (*kernel_size, C, M) kernel -> (batch, *out, C·M).
  Tensor depthwise(const Tensor& x, const Tensor& kernel) const;
  /// The input's channel count (its last axis, or axis 1 for channels_first).
  int64_t channels(const Shape& input_shape) const;
  /// Whether data_format is "channels_first".
  bool channels_first() const { return data_format_ == "channels_first"; }
  /// Output channels of the whole layer (C·M for depthwise, filters for separable).
  virtual int64_t out_channels(int64_t in_channels) const = 0;
  std::string cls_;  ///< The Keras class name, for error messages.
  /// The depthwise window size, step and dilation.
  /// @{
  SpatialSize<N> kernel_size_, strides_, dilation_;
  /// @}
  /// The padding ("valid" or "same") and data_format.
  /// @{
  std::string padding_, data_format_;
  /// @}
  int depth_multiplier_;  ///< Output channels per input channel (M).
  activations::Activation activation_;  ///< The activation function named by the options.
};

/// Depthwise convolution (Keras's `DepthwiseConv1D` for N = 1, `DepthwiseConv2D` for N = 2):
/// each input channel c is convolved with its own kernel[..., c, m], giving output channel
/// c·M + m: (batch, *spatial, C) -> (batch, *out, C · depth_multiplier); kernel
/// (*kernel_size, C, M), bias (C·M,). Defaults: strides 1, "valid", depth_multiplier 1.
/// Users create it through the handles `kiln::layers::DepthwiseConv2D(kernel_size, {...})`
/// and `DepthwiseConv1D`.
template <int N>
class DepthwiseConvImpl : public DepthwiseBase<N> {
 public:
  using Options = DepthwiseConvOptions<N>;  ///< The options struct the constructor takes.
  /// Takes the window size (an int, or (kh, kw) in 2D) and the options.
  explicit DepthwiseConvImpl(SpatialSize<N> kernel_size, Options options = {});
  std::string class_name() const override { return N == 1 ? "DepthwiseConv1D" : "DepthwiseConv2D"; }
  Config get_config() const override;
  KILN_ARGS(DepthwiseConvImpl, kernel_size_)
  const Options& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  int64_t out_channels(int64_t in) const override { return in * o_.depth_multiplier; }
  using Layer::build;
  using Layer::call;

 private:
  Options o_;
  Variable kernel_, bias_;
};

/// Separable convolution (Keras's `SeparableConv1D` / `SeparableConv2D`): the depthwise
/// convolution (strides, padding, dilation) then a pointwise 1x1 convolution to `filters`:
/// (batch, *spatial, C) -> (batch, *out, filters); depthwise_kernel (*kernel_size, C, M),
/// pointwise_kernel (1, [1,] C·M, filters), bias (filters,). Users create it through
/// the handles `kiln::layers::SeparableConv2D(filters, kernel_size, {...})` and `SeparableConv1D`.
template <int N>
class SeparableConvImpl : public DepthwiseBase<N> {
 public:
  using Options = SeparableConvOptions<N>;  ///< The options struct the constructor takes.
  /// `filters` output channels; `kernel_size` the depthwise window.
  SeparableConvImpl(int64_t filters, SpatialSize<N> kernel_size, Options options = {});
  std::string class_name() const override { return N == 1 ? "SeparableConv1D" : "SeparableConv2D"; }
  Config get_config() const override;
  KILN_ARGS(SeparableConvImpl, filters_, kernel_size_)
  const Options& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  int64_t out_channels(int64_t) const override { return filters_; }
  using Layer::build;
  using Layer::call;

 private:
  int64_t filters_;
  Options o_;
  Variable depthwise_kernel_, pointwise_kernel_, bias_;
};

extern template class DepthwiseBase<1>;
extern template class DepthwiseBase<2>;
extern template class DepthwiseConvImpl<1>;
extern template class DepthwiseConvImpl<2>;
extern template class SeparableConvImpl<1>;
extern template class SeparableConvImpl<2>;
using DepthwiseConv1DImpl = DepthwiseConvImpl<1>;  ///< Keras's DepthwiseConv1D.
using DepthwiseConv2DImpl = DepthwiseConvImpl<2>;  ///< Keras's DepthwiseConv2D.
using SeparableConv1DImpl = SeparableConvImpl<1>;  ///< Keras's SeparableConv1D.
using SeparableConv2DImpl = SeparableConvImpl<2>;  ///< Keras's SeparableConv2D.
KILN_LAYER_HANDLE(DepthwiseConv1D);
KILN_LAYER_HANDLE(DepthwiseConv2D);
KILN_LAYER_HANDLE(SeparableConv1D);
KILN_LAYER_HANDLE(SeparableConv2D);

}  // namespace kiln::layers
