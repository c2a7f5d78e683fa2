// Dropout: kiln::dropout in the common case; an explicit mask for noise_shape or a seed.
#include "kiln/layers/dropout.h"

#include "core/number_text.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/random.h"
#include "config_fields.h"
#include "legacy_config.h"

namespace kiln::layers {

using namespace detail;

DropoutImpl::DropoutImpl(double rate, DropoutOptions o) : Layer(base_options(o)), rate_(rate), o_(std::move(o)) {
  if (!(rate_ >= 0 && rate_ <= 1))
    throw ValueError("Dropout: invalid value received for argument `rate`. Expected a float value between 0 and 1. Received: rate=" +
                     kiln::detail::number_text(rate_));
  apply_input_shape(*this, o_);
  set_supports_masking(true);
}

Tensor DropoutImpl::call(const Tensor& input, bool training) {
  if (!training || rate_ == 0) return input;
  Tensor x = cast_input(input, compute_dtype());
  if (rate_ == 1) return zeros_like(x) * x;  // keeps the graph connected; every unit dropped
  if (!o_.noise_shape && !o_.seed) return dropout(x, rate_);
  Shape ns = o_.noise_shape ? *o_.noise_shape : x.shape();
  if (ns.rank() != x.rank())
    throw ShapeError("Layer '" + name() + "' (Dropout): noise_shape " + ns.to_string() + " must have the rank of the input " +
                     x.shape().to_string());
  for (int64_t i = 0; i < ns.rank(); ++i)
    if (ns[i] < 0) ns[i] = x.shape()[i];
  std::optional<uint64_t> seed;
  if (o_.seed) seed = *o_.seed + 0x9E3779B97F4A7C15ull * (calls_++);  // one fresh, reproducible mask per call
  Tensor keep = cast(random::uniform(ns, 0.0, 1.0, x.dtype(), seed) >= rate_, x.dtype());
  return x * (keep / (1.0 - rate_));
}

Config DropoutImpl::get_config() const { return layer_config(*this); }

Config DropoutImpl::upgrade_entry(const Config& e) {
  const Config& c = e["config"];
  if (!c.contains("p") || c.contains("rate")) return e;
  Config n = keras1_base_config(c);
  n["rate"] = c["p"];
  return replace_entry(e, "Dropout", n);
}

KILN_REGISTER_LAYER(DropoutImpl, "Dropout")

}  // namespace kiln::layers
