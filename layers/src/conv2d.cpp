// Conv2D through kiln::conv2d (im2col + GEMM); groups by splitting channels.
#include "kiln/layers/conv2d.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/nn_ops.h"
#include "layer_utils.h"
#include "spatial_sizes.h"

namespace kiln::layers {

using namespace detail;

Conv2DImpl::Conv2DImpl(int64_t filters, Size2 kernel_size, Conv2DOptions o)
    : BaseConvImpl("Conv2D", filters, kernel_size, std::move(o), {"valid", "same"}) {}

Tensor Conv2DImpl::call(const Tensor& input, bool) {
  const bool cf = channels_first();
  Tensor x = channels_last_input(input);
  Tensor w = kernel_.value();
  const bool fused_relu = o_.activation == "relu";
  if (o_.groups == 1 && o_.use_bias && !cf) {
    // Bias (and a relu activation) applied in the convolution's output pass.
    Tensor y = conv2d_bias(x, w, bias_.value(), conv2d_options(o_.padding), fused_relu);
    return fused_relu ? y : activation_(y);
  }
  Tensor y = grouped_conv2d(x, w, o_.padding);
  // Bias and a relu activation run as one fused pass.
  if (o_.use_bias && !cf && fused_relu) return bias_add(y, bias_.value(), true);
  if (o_.use_bias) y = bias_add(y, bias_.value());
  if (cf) y = transpose(y, to_channels_first(4));
  return activation_(y);
}

std::shared_ptr<Conv2DImpl> Conv2DImpl::from_config(const Config& config) {
  int64_t filters = 0;
  Size2 kernel_size;
  Conv2DOptions o = options_from_config(config, "Conv2D", filters, kernel_size);
  return std::make_shared<Conv2DImpl>(filters, kernel_size, std::move(o));
}

}  // namespace kiln::layers
