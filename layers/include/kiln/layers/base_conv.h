#pragma once
// BaseConvImpl<N>: what the rank-N convolution layers share (Keras's BaseConv):
// the options, argument checks, the kernel and bias weights, the output shape
// and the config keys. Each subclass runs its convolution through the conv ops,
// with grouped_conv2d doing the channel groups.
//   kernel: (*kernel_size, C_in / groups, filters), bias: (filters,)
//   x: (batch, *spatial, C_in) (channels_last) -> (batch, *new_spatial, filters)
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>

#include "kiln/core/fields.h"
#include "kiln/layers/common.h"
#include "kiln/nn/activations.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln {
struct Conv2DOptions;
}

namespace kiln::layers {

/// Conv1D's kernel_size is one int, Conv2D's an int or an int pair (Size2).
template <int N>
using ConvKernelSize = SpatialSize<N>;

template <int N>
struct ConvOptions {
  SpatialSize<N> strides = 1;
  std::string padding = "valid";  // "valid" or "same"; Conv1D also takes "causal"
  std::string data_format = "channels_last";
  SpatialSize<N> dilation_rate = 1;
  int groups = 1;
  std::string activation = "linear";
  bool use_bias = true;
  InitializerArg kernel_initializer = "glorot_uniform";
  InitializerArg bias_initializer = "zeros";
  regularizers::RegularizerPtr kernel_regularizer = nullptr;
  regularizers::RegularizerPtr bias_regularizer = nullptr;
  regularizers::RegularizerPtr activity_regularizer = nullptr;
  constraints::ConstraintPtr kernel_constraint = nullptr;
  constraints::ConstraintPtr bias_constraint = nullptr;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ConvOptions, strides, padding, data_format, dilation_rate, groups, activation, use_bias,
              kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
              kernel_constraint, bias_constraint)
};

template <int N>
class BaseConvImpl : public Layer {
 public:
  using Size = SpatialSize<N>;
  using KernelSize = ConvKernelSize<N>;
  using Options = ConvOptions<N>;

  Config get_config() const override;
  KILN_ARGS(BaseConvImpl, filters_, kernel_size_)
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

  int64_t filters() const { return filters_; }
  KernelSize kernel_size() const { return kernel_size_; }
  const ConvOptions<N>& options() const { return o_; }
  Variable kernel() const { return kernel_; }
  Variable bias() const { return bias_; }

 protected:
  /// `cls` names the layer in error messages; `paddings` are the accepted padding values.
  BaseConvImpl(std::string cls, int64_t filters, KernelSize kernel_size, ConvOptions<N> options,
               std::initializer_list<const char*> paddings);
  void build(const Shape& input_shape) override;
  using Layer::build;
  using Layer::call;

  bool channels_first() const { return o_.data_format == "channels_first"; }
  /// The input in the layer's dtype and in channels_last order.
  Tensor channels_last_input(const Tensor& input) const;
  /// The 2D conv op's strides and dilation; a rank-1 layer runs on a unit height axis.
  ::kiln::Conv2DOptions conv2d_options(const std::string& padding) const;
  /// conv2d of a channels_last x with a (kh, kw, C_in / groups, filters) kernel:
  /// group g sees input channels [g·in/G, (g+1)·in/G) and owns filters [g·F/G, (g+1)·F/G).
  Tensor grouped_conv2d(const Tensor& x, const Tensor& kernel, const std::string& padding) const;

  int64_t filters_;
  KernelSize kernel_size_;
  ConvOptions<N> o_;
  activations::Activation activation_;
  Variable kernel_, bias_;

 private:
  std::string cls_;
};

extern template class BaseConvImpl<1>;
extern template class BaseConvImpl<2>;

}  // namespace kiln::layers
