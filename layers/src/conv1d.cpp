// Conv1D as a Conv2D over (batch, 1, steps, channels) with a (1, k, in, out) kernel.
#include "kiln/layers/conv1d.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "layer_utils.h"
#include "spatial_sizes.h"

namespace kiln::layers {

using namespace detail;

Conv1DImpl::Conv1DImpl(int64_t filters, int64_t kernel_size, Conv1DOptions o)
    : BaseConvImpl("Conv1D", filters, kernel_size, std::move(o), {"valid", "same", "causal"}) {}

Tensor Conv1DImpl::call(const Tensor& input, bool) {
  Tensor x = channels_last_input(input);
  std::string padding = o_.padding;
  if (padding == "causal") {
    // Zeros in front of the sequence, then a "valid" convolution.
    const int64_t pad = (kernel_size_ - 1) * o_.dilation_rate;
    if (pad > 0) x = concat({zeros({x.shape()[0], pad, x.shape()[2]}, x.dtype()), x}, 1);
    padding = "valid";
  }
  x = expand_dims(x, 1);  // (b, 1, steps, c)
  Tensor w = kernel_.value();
  w = reshape(w, {1, w.shape()[0], w.shape()[1], w.shape()[2]});
  Tensor y = squeeze(grouped_conv2d(x, w, padding), {1});
  if (o_.use_bias) y = y + bias_.value();
  if (channels_first()) y = transpose(y, to_channels_first(3));
  return activation_(y);
}

std::shared_ptr<Conv1DImpl> Conv1DImpl::from_config(const Config& config) {
  int64_t filters = 0, kernel_size = 0;
  Conv1DOptions o = options_from_config(config, "Conv1D", filters, kernel_size);
  return std::make_shared<Conv1DImpl>(filters, kernel_size, std::move(o));
}

}  // namespace kiln::layers
