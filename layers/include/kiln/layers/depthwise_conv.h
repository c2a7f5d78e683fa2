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

template <int N>
struct DepthwiseConvOptions {
  SpatialSize<N> strides = 1;
  std::string padding = "valid";
  int depth_multiplier = 1;
  std::string data_format = "channels_last";
  SpatialSize<N> dilation_rate = 1;
  std::string activation = "linear";
  bool use_bias = true;
  InitializerArg depthwise_initializer = "glorot_uniform";
  InitializerArg bias_initializer = "zeros";
  regularizers::RegularizerPtr depthwise_regularizer = nullptr;
  regularizers::RegularizerPtr bias_regularizer = nullptr;
  regularizers::RegularizerPtr activity_regularizer = nullptr;
  constraints::ConstraintPtr depthwise_constraint = nullptr;
  constraints::ConstraintPtr bias_constraint = nullptr;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(DepthwiseConvOptions, depth_multiplier, strides, padding, data_format, dilation_rate, activation,
              use_bias, depthwise_initializer, bias_initializer, depthwise_regularizer, bias_regularizer,
              activity_regularizer, depthwise_constraint, bias_constraint)
};

template <int N>
struct SeparableConvOptions {
  SpatialSize<N> strides = 1;
  std::string padding = "valid";
  std::string data_format = "channels_last";
  SpatialSize<N> dilation_rate = 1;
  int depth_multiplier = 1;
  std::string activation = "linear";
  bool use_bias = true;
  InitializerArg depthwise_initializer = "glorot_uniform";
  InitializerArg pointwise_initializer = "glorot_uniform";
  InitializerArg bias_initializer = "zeros";
  regularizers::RegularizerPtr depthwise_regularizer = nullptr;
  regularizers::RegularizerPtr pointwise_regularizer = nullptr;
  regularizers::RegularizerPtr bias_regularizer = nullptr;
  regularizers::RegularizerPtr activity_regularizer = nullptr;
  constraints::ConstraintPtr depthwise_constraint = nullptr;
  constraints::ConstraintPtr pointwise_constraint = nullptr;
  constraints::ConstraintPtr bias_constraint = nullptr;
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
  DepthwiseBase(std::string cls, SpatialSize<N> kernel_size, LayerOptions base, SpatialSize<N> strides,
                std::string padding, std::string data_format, SpatialSize<N> dilation, int depth_multiplier,
                const std::string& activation);
  /// channels_last x (batch, *spatial, C) with a (*kernel_size, C, M) kernel -> (batch, *out, C·M).
  Tensor depthwise(const Tensor& x, const Tensor& kernel) const;
  int64_t channels(const Shape& input_shape) const;
  bool channels_first() const { return data_format_ == "channels_first"; }
  /// Output channels of the whole layer (C·M for depthwise, filters for separable).
  virtual int64_t out_channels(int64_t in_channels) const = 0;
  std::string cls_;
  SpatialSize<N> kernel_size_, strides_, dilation_;
  std::string padding_, data_format_;
  int depth_multiplier_;
  activations::Activation activation_;
};

template <int N>
class DepthwiseConvImpl : public DepthwiseBase<N> {
 public:
  using Options = DepthwiseConvOptions<N>;
  explicit DepthwiseConvImpl(SpatialSize<N> kernel_size, Options options = {});
  std::string class_name() const override { return N == 1 ? "DepthwiseConv1D" : "DepthwiseConv2D"; }
  Config get_config() const override;
  KILN_ARGS(DepthwiseConvImpl, kernel_size_)
  const Options& options() const { return o_; }

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

template <int N>
class SeparableConvImpl : public DepthwiseBase<N> {
 public:
  using Options = SeparableConvOptions<N>;
  SeparableConvImpl(int64_t filters, SpatialSize<N> kernel_size, Options options = {});
  std::string class_name() const override { return N == 1 ? "SeparableConv1D" : "SeparableConv2D"; }
  Config get_config() const override;
  KILN_ARGS(SeparableConvImpl, filters_, kernel_size_)
  const Options& options() const { return o_; }

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
using DepthwiseConv1DImpl = DepthwiseConvImpl<1>;
using DepthwiseConv2DImpl = DepthwiseConvImpl<2>;
using SeparableConv1DImpl = SeparableConvImpl<1>;
using SeparableConv2DImpl = SeparableConvImpl<2>;
KILN_LAYER_HANDLE(DepthwiseConv1D);
KILN_LAYER_HANDLE(DepthwiseConv2D);
KILN_LAYER_HANDLE(SeparableConv1D);
KILN_LAYER_HANDLE(SeparableConv2D);

}  // namespace kiln::layers
