#pragma once
// Conv2D: 2D cross-correlation (the kernel is not flipped), then bias and activation.
//   x: (batch, H, W, C_in) (channels_last) -> (batch, OH, OW, filters)
//   kernel: (kh, kw, C_in / groups, filters), bias: (filters,)
//   OH = ceil((H - (kh-1)·dilation) / stride) for "valid", ceil(H / stride) for "same"
//   ("same" pads like TF: the odd pixel goes at the bottom/right).
// groups > 1 splits the channels into `groups` independent convolutions.
// data_format "channels_first" takes (batch, C, H, W) and transposes around the NHWC kernel.
//
//   L::Conv2D(32, 3, {.activation = "relu", .input_shape = Shape{28, 28, 1}});
//   L::Conv2D(64, {3, 5}, {.strides = 2, .padding = "same"});
#include <cstdint>
#include <memory>
#include <string>

#include "kiln/layers/base_conv.h"

namespace kiln::layers {

using Conv2DOptions = ConvOptions<2>;

class Conv2DImpl : public BaseConvImpl<2> {
 public:
  Conv2DImpl(int64_t filters, Size2 kernel_size, Conv2DOptions options = {});
  std::string class_name() const override { return "Conv2D"; }
  static std::shared_ptr<Conv2DImpl> from_config(const Config& config);

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using BaseConvImpl<2>::call;
};

class Conv2D : public LayerHandle<Conv2DImpl> {
 public:
  using LayerHandle<Conv2DImpl>::LayerHandle;
  Conv2D(int64_t filters, Size2 kernel_size, Conv2DOptions options = {})
      : LayerHandle(std::make_shared<Conv2DImpl>(filters, kernel_size, std::move(options))) {
    ptr()->name();
  }
};
/// Keras 2 alias.
using Convolution2D = Conv2D;

}  // namespace kiln::layers
