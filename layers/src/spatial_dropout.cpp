// SpatialDropout1D/2D/3D: one keep-mask entry per (sample, channel), broadcast over the spatial axes.
#include "kiln/layers/spatial_dropout.h"

#include "core/number_text.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

SpatialDropoutBase::SpatialDropoutBase(const std::string& cls, int spatial_rank, double rate, LayerOptions base,
                                       std::optional<uint64_t> seed, const std::string& data_format)
    : Layer(std::move(base)), rate_(rate), spatial_rank_(spatial_rank), seed_(seed) {
  if (!(rate_ >= 0 && rate_ <= 1))
    throw ValueError(cls + ": invalid value received for argument `rate`. Expected a float value between 0 and 1. Received: rate=" +
                     kiln::detail::number_text(rate_));
  channels_first_ = check_data_format(cls, data_format) == "channels_first";
  set_input_spec({InputSpec{.ndim = spatial_rank + 2}});
}

Tensor SpatialDropoutBase::call(const Tensor& input, bool training) {
  if (!training || rate_ == 0) return input;
  Tensor x = cast_input(input, compute_dtype());
  if (rate_ == 1) return zeros_like(x) * x;  // every channel dropped; the graph stays connected
  // (batch, 1, ..., 1, channels), or (batch, channels, 1, ..., 1) for channels_first.
  Shape ns(std::vector<int64_t>(x.rank(), 1));
  ns[0] = x.shape()[0];
  const int c = channels_first_ ? 1 : static_cast<int>(x.rank()) - 1;
  ns[c] = x.shape()[c];
  std::optional<uint64_t> seed;
  if (seed_) seed = *seed_ + 0x9E3779B97F4A7C15ull * (calls_++);
  Tensor keep = cast(random::uniform(ns, 0.0, 1.0, x.dtype(), seed) >= rate_, x.dtype());
  return x * (keep / (1.0 - rate_));
}

Config SpatialDropoutBase::trim_config(Config c) const {
  c.erase("trainable");
  return c;
}

SpatialDropout1DImpl::SpatialDropout1DImpl(double rate, SpatialDropout1DOptions o)
    : SpatialDropoutBase("SpatialDropout1D", 1, rate, base_options(o), o.seed, "channels_last"), o_(std::move(o)) {
  apply_input_shape(*this, o_);
}
Config SpatialDropout1DImpl::get_config() const { return trim_config(layer_config(*this)); }
KILN_REGISTER_LAYER(SpatialDropout1DImpl, "SpatialDropout1D")

SpatialDropout2DImpl::SpatialDropout2DImpl(double rate, SpatialDropoutOptions o)
    : SpatialDropoutBase("SpatialDropout2D", 2, rate, base_options(o), o.seed, o.data_format), o_(std::move(o)) {
  o_.data_format = check_data_format("SpatialDropout2D", o_.data_format);
  apply_input_shape(*this, o_);
}
Config SpatialDropout2DImpl::get_config() const { return trim_config(layer_config(*this)); }
KILN_REGISTER_LAYER(SpatialDropout2DImpl, "SpatialDropout2D")

SpatialDropout3DImpl::SpatialDropout3DImpl(double rate, SpatialDropoutOptions o)
    : SpatialDropoutBase("SpatialDropout3D", 3, rate, base_options(o), o.seed, o.data_format), o_(std::move(o)) {
  o_.data_format = check_data_format("SpatialDropout3D", o_.data_format);
  apply_input_shape(*this, o_);
}
Config SpatialDropout3DImpl::get_config() const { return trim_config(layer_config(*this)); }
KILN_REGISTER_LAYER(SpatialDropout3DImpl, "SpatialDropout3D")

}  // namespace kiln::layers
