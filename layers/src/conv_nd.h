#pragma once
// Private: a channels_last convolution of rank 1, 2 or 3 through the 2D conv
// op, for layers that convolve with a kernel they own but are not a Conv
// layer (ConvLSTM's input and recurrent convolutions).
//   x: (batch, *spatial, C_in), kernel: (*kernel_size, C_in, C_out)
//   -> (batch, *new_spatial, C_out); "same" pads like TF (the extra zero after).
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln::layers::detail {

/// strides and dilation hold one value per spatial axis (kernel.rank() - 2 of them).
Tensor conv_nd(const Tensor& x, const Tensor& kernel, const std::vector<int64_t>& strides, const std::string& padding,
               const std::vector<int64_t>& dilation);

}  // namespace kiln::layers::detail
