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
#include "kiln/layers/lora.h"
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

/// Options of the 1D and 2D convolution layers (Keras's Conv1D / Conv2D constructor
/// arguments after filters and kernel_size).
template <int N>
struct ConvOptions {
  SpatialSize<N> strides = 1;  ///< Step of the window on each spatial axis.
  std::string padding = "valid";  ///< "valid" or "same"; Conv1D also takes "causal".
  /// "channels_last" (batch, *spatial, C) or "channels_first" (batch, C, *spatial).
  std::string data_format = "channels_last";
  SpatialSize<N> dilation_rate = 1;  ///< Spacing between kernel taps (1: a dense kernel).
  int groups = 1;  ///< Channel groups: each group convolves C_in / groups channels into filters / groups.
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
  KILN_FIELDS(ConvOptions, strides, padding, data_format, dilation_rate, groups, activation, use_bias,
              kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
              kernel_constraint, bias_constraint, lora_rank, lora_alpha)
};

/// What the rank-N convolution layers share (Keras's BaseConv): the options, argument
/// checks, kernel (*kernel_size, C_in / groups, filters) and bias (filters,) weights, the
/// output shape and the config keys. x: (batch, *spatial, C_in) -> (batch, *new_spatial,
/// filters) in channels_last. Users create Conv1D / Conv2D through their handles.
template <int N>
class BaseConvImpl : public LoraLayer {
 public:
  using Size = SpatialSize<N>;  ///< The per-axis size type: an int (1D) or an int pair (2D).
  using KernelSize = ConvKernelSize<N>;  ///< The kernel_size type.
  using Options = ConvOptions<N>;  ///< The options struct the constructor takes.

  /// The config: the base entries, filters, kernel_size and the options.
  Config get_config() const override;
  KILN_ARGS(BaseConvImpl, filters_, kernel_size_)
  /// (batch, *spatial, C_in) -> (batch, *new_spatial, filters), None batch kept.
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;

  int64_t filters() const { return filters_; }  ///< The number of output channels.
  KernelSize kernel_size() const { return kernel_size_; }  ///< The window size on each spatial axis.
  const ConvOptions<N>& options() const { return o_; }  ///< The options this layer was created with.
  Variable kernel() const { return kernel_; }  ///< (*kernel_size, C_in / groups, filters); undefined before build.
  Variable bias() const { return bias_; }  ///< (filters,); undefined before build or without use_bias.

 protected:
  /// `cls` names the layer in error messages; `paddings` are the accepted padding values.
  BaseConvImpl(std::string cls, int64_t filters, KernelSize kernel_size, ConvOptions<N> options,
               std::initializer_list<const char*> paddings);
  /// Creates the kernel and bias from the input's channel axis.
  void build(const Shape& input_shape) override;
  /// The kernel that LoRA adapts, with its regularizer and constraint.
  LoraBase lora_base() const override;
  using Layer::build;
  using Layer::call;

  /// Whether data_format is "channels_first".
  bool channels_first() const { return o_.data_format == "channels_first"; }
  /// The input in the layer's dtype and in channels_last order.
  Tensor channels_last_input(const Tensor& input) const;
  /// The 2D conv op's strides and dilation; a rank-1 layer runs on a unit height axis.
  ::kiln::Conv2DOptions conv2d_options(const std::string& padding) const;
  /// conv2d of a channels_last x with a (kh, kw, C_in / groups, filters) kernel:
  /// group g sees input channels [g·in/G, (g+1)·in/G) and owns filters [g·F/G, (g+1)·F/G).
  Tensor grouped_conv2d(const Tensor& x, const Tensor& kernel, const std::string& padding) const;

  int64_t filters_;  ///< See filters().
  KernelSize kernel_size_;  ///< See kernel_size().
  ConvOptions<N> o_;  ///< See options().
  activations::Activation activation_;  ///< The activation function named by options().activation.
  /// The kernel weight; see kernel().
  Variable kernel_, bias_;  ///< The bias weight; see bias().

 private:
  std::string cls_;
};

extern template class BaseConvImpl<1>;
extern template class BaseConvImpl<2>;

}  // namespace kiln::layers
