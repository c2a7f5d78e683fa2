// Conv2D through kiln::conv2d (im2col + GEMM); groups by splitting channels.
#include "kiln/layers/conv2d.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/nn_ops.h"
#include "config_fields.h"
#include "legacy_config.h"
#include "spatial_sizes.h"

namespace kiln::layers {

using namespace detail;

Conv2DImpl::Conv2DImpl(int64_t filters, Size2 kernel_size, Conv2DOptions o)
    : BaseConvImpl("Conv2D", filters, kernel_size, std::move(o), {"valid", "same"}) {}

Tensor Conv2DImpl::call(const Tensor& input, bool) {
  const bool cf = channels_first();
  Tensor x = channels_last_input(input);
  Tensor w = kernel_with_lora();
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

Config Conv2DImpl::upgrade_entry(const Config& e) {
  const Config& c = e["config"];
  if (!c.contains("nb_filter")) return e;
  Config n = keras1_base_config(c);
  n["filters"] = c["nb_filter"];
  n["kernel_size"] = Config::array({c.at("nb_row"), c.at("nb_col")});
  n["strides"] = c.value("subsample", Config::array({1, 1}));
  n["padding"] = c.value("border_mode", "valid");
  n["data_format"] = keras1_data_format(c);
  n["use_bias"] = c.value("bias", true);
  if (c.contains("dilation_rate")) n["dilation_rate"] = c["dilation_rate"];
  return replace_entry(e, "Conv2D", n);
}

std::vector<Tensor> Conv2DImpl::upgrade_legacy_weights(const Layer& l, std::vector<Tensor> ws,
                                                       const LegacyWeightsSource& from) {
  if (ws[0].rank() != 4) return ws;
  // Keras 1 channels-first kernels are (out, in, kh, kw); Kiln's are (kh, kw, in, out).
  if (from.keras_version == "1" && ws[0].shape() != l.weights()[0].shape()) ws[0] = transpose4(ws[0], {2, 3, 1, 0});
  if (from.theano) ws[0] = flip_spatial(ws[0], 2);
  return ws;
}

KILN_REGISTER_LAYER(Conv2DImpl, "Conv2D", "Convolution2D")

}  // namespace kiln::layers
