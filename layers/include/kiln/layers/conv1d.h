#pragma once
// Conv1D: 1D cross-correlation over the steps axis, then bias and activation.
//   x: (batch, steps, C_in) -> (batch, new_steps, filters)
//   kernel: (kernel_size, C_in / groups, filters), bias: (filters,)
// padding "causal" left-pads by (kernel_size-1)·dilation_rate so output[t] sees only x[<= t].
// Computed by kiln::conv2d on a unit height axis.
//
//   L::Conv1D(16, 3, {.padding = "causal", .activation = "relu"});
#include <cstdint>
#include <memory>
#include <string>

#include <vector>

#include "kiln/layers/base_conv.h"
#include "kiln/nn/layer_registry.h"

namespace kiln::layers {

using Conv1DOptions = ConvOptions<1>;  ///< Options of Conv1D (ConvOptions of rank 1).

/// 1D convolution (cross-correlation) over the steps axis, then bias and activation
/// (Keras's `Conv1D`): (batch, steps, C_in) -> (batch, new_steps, filters); kernel
/// (kernel_size, C_in / groups, filters). Defaults: strides 1, "valid" padding, no
/// activation; "causal" padding left-pads so output[t] sees only x[<= t].
/// Users create it through the handle `kiln::layers::Conv1D(filters, kernel_size, {...})`.
class Conv1DImpl : public BaseConvImpl<1> {
 public:
  /// `filters` output channels, a window of `kernel_size` steps.
  Conv1DImpl(int64_t filters, Size1 kernel_size, Conv1DOptions options = {});
  std::string class_name() const override { return "Conv1D"; }
  /// Keras 1's Convolution1D keys (nb_filter, border_mode, ...).
  static Config upgrade_entry(const Config& entry);
  /// Keras 1 kernel layouts and Theano's flipped kernels.
  static std::vector<Tensor> upgrade_legacy_weights(const Layer& layer, std::vector<Tensor> weights,
                                                    const LegacyWeightsSource& from);

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using BaseConvImpl<1>::call;
};

KILN_LAYER_HANDLE(Conv1D);
using Convolution1D = Conv1D;  ///< Keras 2's alias of Conv1D.

}  // namespace kiln::layers
