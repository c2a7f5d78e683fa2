// Conv1D as a Conv2D over (batch, 1, steps, channels) with a (1, k, in, out) kernel.
#include "kiln/layers/conv1d.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "config_fields.h"
#include "legacy_config.h"
#include "spatial_sizes.h"

namespace kiln::layers {

using namespace detail;

Conv1DImpl::Conv1DImpl(int64_t filters, Size1 kernel_size, Conv1DOptions o)
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
  Tensor w = kernel_with_lora();
  w = reshape(w, {1, w.shape()[0], w.shape()[1], w.shape()[2]});
  Tensor y = squeeze(grouped_conv2d(x, w, padding), {1});
  if (o_.use_bias) y = y + bias_.value();
  if (channels_first()) y = transpose(y, to_channels_first(3));
  return activation_(y);
}

Config Conv1DImpl::upgrade_entry(const Config& e) {
  const Config& c = e["config"];
  if (!c.contains("nb_filter")) return e;
  Config n = keras1_base_config(c);
  n["filters"] = c["nb_filter"];
  n["kernel_size"] = c.value("filter_length", Config(1));
  n["strides"] = c.value("subsample_length", Config(1));
  n["padding"] = c.value("border_mode", "valid");
  n["use_bias"] = c.value("bias", true);
  return replace_entry(e, "Conv1D", n);
}

std::vector<Tensor> Conv1DImpl::upgrade_legacy_weights(const Layer& l, std::vector<Tensor> ws,
                                                       const LegacyWeightsSource& from) {
  if (from.keras_version == "1" && ws[0].rank() == 4) {
    const Shape own = l.weights()[0].shape();
    const auto& d = ws[0].shape().dims();
    Tensor k = ws[0];
    if (d[3] == 1 && own.rank() == 3 && d[0] == own[2]) k = transpose4(k, {2, 3, 1, 0});
    const auto& kd = k.shape().dims();  // (length, 1, in, out) -> (length, in, out)
    k = k.reshape(Shape({kd[0], kd[2], kd[3]}));
    ws[0] = from.theano ? flip_spatial(k, 1) : k;
  } else if (from.theano && ws[0].rank() == 3) {
    ws[0] = flip_spatial(ws[0], 1);
  }
  return ws;
}

KILN_REGISTER_LAYER(Conv1DImpl, "Conv1D", "Convolution1D")

}  // namespace kiln::layers
