// GaussianNoise, GaussianDropout and AlphaDropout (Keras 3's formulas).
#include "kiln/layers/noise.h"

#include <cmath>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

namespace {
void check_unit_interval(const char* cls, const char* arg, double v) {
  if (!(v >= 0 && v <= 1))
    throw ValueError(std::string(cls) + ": invalid value received for argument `" + arg +
                     "`. Expected a float value between 0 and 1. Received: " + arg + "=" + std::to_string(v));
}
}  // namespace

std::optional<uint64_t> NoiseLayer::next_seed(const std::optional<uint64_t>& seed) {
  if (!seed) return std::nullopt;
  return *seed + 0x9E3779B97F4A7C15ull * (calls_++);  // one fresh, reproducible draw per call
}

// ---- GaussianNoise ----
GaussianNoiseImpl::GaussianNoiseImpl(double stddev, NoiseOptions o)
    : NoiseLayer(base_options(o)), stddev_(stddev), o_(std::move(o)) {
  check_unit_interval("GaussianNoise", "stddev", stddev_);
  apply_input_shape(*this, o_);
}

Tensor GaussianNoiseImpl::call(const Tensor& input, bool training) {
  if (!training || stddev_ == 0) return input;
  Tensor x = cast_input(input, compute_dtype());
  return x + random::normal(x.shape(), 0.0, stddev_, x.dtype(), next_seed(o_.seed));
}

Config GaussianNoiseImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(GaussianNoiseImpl, "GaussianNoise")

// ---- GaussianDropout ----
GaussianDropoutImpl::GaussianDropoutImpl(double rate, NoiseOptions o)
    : NoiseLayer(base_options(o)), rate_(rate), o_(std::move(o)) {
  check_unit_interval("GaussianDropout", "rate", rate_);
  apply_input_shape(*this, o_);
}

Tensor GaussianDropoutImpl::call(const Tensor& input, bool training) {
  if (!training || rate_ == 0) return input;
  Tensor x = cast_input(input, compute_dtype());
  const double stddev = std::sqrt(rate_ / (1.0 - rate_));
  return x * random::normal(x.shape(), 1.0, stddev, x.dtype(), next_seed(o_.seed));
}

Config GaussianDropoutImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(GaussianDropoutImpl, "GaussianDropout")

// ---- AlphaDropout ----
AlphaDropoutImpl::AlphaDropoutImpl(double rate, AlphaDropoutOptions o)
    : NoiseLayer(base_options(o)), rate_(rate), o_(std::move(o)) {
  check_unit_interval("AlphaDropout", "rate", rate_);
  apply_input_shape(*this, o_);
}

Tensor AlphaDropoutImpl::call(const Tensor& input, bool training) {
  if (!training || rate_ == 0) return input;
  Tensor x = cast_input(input, compute_dtype());
  Shape ns = o_.noise_shape ? *o_.noise_shape : x.shape();
  if (ns.rank() != x.rank())
    throw ShapeError("Layer '" + name() + "' (AlphaDropout): noise_shape " + ns.to_string() +
                     " must have the rank of the input " + x.shape().to_string());
  for (int64_t i = 0; i < ns.rank(); ++i)
    if (ns[i] < 0) ns[i] = x.shape()[i];
  // SELU's constants: a dropped unit takes SELU's negative saturation value.
  const double alpha = 1.6732632423543772848170429916717, scale = 1.0507009873554804934193349852946;
  const double alpha_p = -alpha * scale;
  Tensor kept = cast(random::uniform(ns, 0.0, 1.0, x.dtype(), next_seed(o_.seed)) >= rate_, x.dtype());
  const double a = std::pow((1 - rate_) * (1 + rate_ * alpha_p * alpha_p), -0.5);
  const double b = -a * alpha_p * rate_;
  Tensor y = x * kept + (1.0 - kept) * alpha_p;
  return y * a + b;
}

Config AlphaDropoutImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(AlphaDropoutImpl, "AlphaDropout")

}  // namespace kiln::layers
