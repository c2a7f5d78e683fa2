// Dropout: kiln::dropout in the common case; an explicit mask for noise_shape or a seed.
#include "kiln/layers/dropout.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/random.h"
#include "layer_utils.h"

namespace kiln::layers {

using namespace detail;

DropoutImpl::DropoutImpl(double rate, DropoutOptions o) : Layer(base_options(o)), rate_(rate), o_(std::move(o)) {
  if (!(rate_ >= 0 && rate_ <= 1))
    throw ValueError("Dropout: invalid value received for argument `rate`. Expected a float value between 0 and 1. Received: rate=" +
                     std::to_string(rate_));
  apply_input_shape(*this, o_);
}

Tensor DropoutImpl::call(const Tensor& input, bool training) {
  if (!training || rate_ == 0) return input;
  Tensor x = cast_input(input, dtype());
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

Config DropoutImpl::get_config() const {
  Config c = base_config();
  c["rate"] = rate_;
  c["seed"] = o_.seed ? Config(*o_.seed) : Config(nullptr);
  c["noise_shape"] = o_.noise_shape ? shape_to_json(*o_.noise_shape) : Config(nullptr);
  add_declared_shape(*this, c);
  return c;
}

std::shared_ptr<DropoutImpl> DropoutImpl::from_config(const Config& config) {
  ConfigReader r("Dropout", config);
  DropoutOptions o;
  r.base(o);
  if (r.has("noise_shape")) o.noise_shape = shape_from_json(config["noise_shape"], "Dropout.from_config 'noise_shape'");
  if (auto s = r.optional_integer("seed")) o.seed = static_cast<uint64_t>(*s);
  // Keras 1 called the rate "p".
  double rate = r.has("rate") ? r.number("rate", 0) : r.number("p", 0);
  return std::make_shared<DropoutImpl>(rate, std::move(o));
}

}  // namespace kiln::layers
