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

#include <vector>

#include "kiln/layers/base_conv.h"
#include "kiln/nn/layer_registry.h"

namespace kiln::layers {

using Conv2DOptions = ConvOptions<2>;  ///< Options of Conv2D (ConvOptions of rank 2).

/// 2D convolution (cross-correlation; the kernel is not flipped), then bias and activation
/// (Keras's `Conv2D`): (batch, H, W, C_in) -> (batch, OH, OW, filters) in channels_last;
/// kernel (kh, kw, C_in / groups, filters). Defaults: strides 1, "valid" padding, no
/// activation, one group. Users create it through the handle
/// `kiln::layers::Conv2D(filters, kernel_size, {...})`, e.g. `Conv2D(32, 3)` or `Conv2D(64, {3, 5})`.
class Conv2DImpl : public BaseConvImpl<2> {
 public:
  /// `filters` output channels; `kernel_size` one int (square) or (kh, kw).
  Conv2DImpl(int64_t filters, Size2 kernel_size, Conv2DOptions options = {});
  std::string class_name() const override { return "Conv2D"; }
  /// Keras 1's Convolution2D keys (nb_filter, border_mode, ...).
  static Config upgrade_entry(const Config& entry);
  /// Keras 1 kernel layouts and Theano's flipped kernels.
  static std::vector<Tensor> upgrade_legacy_weights(const Layer& layer, std::vector<Tensor> weights,
                                                    const LegacyWeightsSource& from);

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using BaseConvImpl<2>::call;
};

KILN_LAYER_HANDLE(Conv2D);
/// Keras 2 alias.
using Convolution2D = Conv2D;

}  // namespace kiln::layers
