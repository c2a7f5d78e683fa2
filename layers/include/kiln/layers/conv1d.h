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

#include "kiln/layers/base_conv.h"

namespace kiln::layers {

using Conv1DOptions = ConvOptions<1>;

class Conv1DImpl : public BaseConvImpl<1> {
 public:
  Conv1DImpl(int64_t filters, int64_t kernel_size, Conv1DOptions options = {});
  std::string class_name() const override { return "Conv1D"; }
  static std::shared_ptr<Conv1DImpl> from_config(const Config& config);

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using BaseConvImpl<1>::call;
};

class Conv1D : public LayerHandle<Conv1DImpl> {
 public:
  using LayerHandle<Conv1DImpl>::LayerHandle;
  Conv1D(int64_t filters, int64_t kernel_size, Conv1DOptions options = {})
      : LayerHandle(std::make_shared<Conv1DImpl>(filters, kernel_size, std::move(options))) {
    ptr()->name();
  }
};
using Convolution1D = Conv1D;

}  // namespace kiln::layers
