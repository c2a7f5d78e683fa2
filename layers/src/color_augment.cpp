// Solarization, RandomInvert and RandomPosterization as Keras 3.15 computes them
// (solarization.py, random_invert.py, random_posterization.py).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "color_utils.h"
#include "kiln/layers/color_augment.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

namespace {

std::string solarization_number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// Solarization's own _set_factor: each value in [0, 1]; a number f gives (0, f).
Factor solarization_factor(const Factor& f, const char* arg) {
  const std::string head = "Solarization: the `addition_factor` and `threshold_factor` arguments should be a number "
                           "(or a list of two numbers) in the range [0, 1]. ";
  auto check = [&](double v) {
    if (v > 1.0 || v < 0.0) throw ValueError(head + "Received: input_number=" + solarization_number_text(v));
  };
  if (f.values.size() != 1 && f.values.size() != 2) {
    std::string given = "[";
    for (std::size_t i = 0; i < f.values.size(); ++i) given += (i ? ", " : "") + solarization_number_text(f.values[i]);
    throw ValueError(head + "Received: " + arg + "=" + given + "]");
  }
  for (const double v : f.values) check(v);
  if (f.values.size() == 1) return Factor(0.0, f.values[0]);
  return Factor(std::min(f.values[0], f.values[1]), std::max(f.values[0], f.values[1]));
}

}  // namespace

// ---- Solarization ----
SolarizationImpl::SolarizationImpl(SolarizationOptions o) : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  o_.addition_factor = solarization_factor(o_.addition_factor, "addition_factor");
  o_.threshold_factor = solarization_factor(o_.threshold_factor, "threshold_factor");
  check_color_value_range("Solarization", o_.value_range, /*sort=*/true);
  o_.data_format = check_data_format("Solarization", o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor SolarizationImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);
  if (training) {
    const auto& a = o_.addition_factor.values;
    const auto& t = o_.threshold_factor.values;
    const Tensor additions = per_image_uniform(x, a[0], a[1] * 255, next_seed(o_.seed));
    const Tensor thresholds = per_image_uniform(x, t[0], t[1] * 255, next_seed(o_.seed));
    const double lo = o_.value_range[0], hi = o_.value_range[1];
    const Tensor y = clip(transform_value_range(x, lo, hi, 0, 255) + additions, 0.0, 255.0);
    x = transform_value_range(where(less(y, thresholds), y, 255.0 - y), 0, 255, lo, hi);
  }
  return from_batch(x, input.rank(), o_.data_format);
}

Config SolarizationImpl::get_config() const { return layer_config(*this); }

// ---- RandomInvert ----
RandomInvertImpl::RandomInvertImpl(Factor factor, RandomColorOptions o) : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  const auto [lower, upper] = base_factor_range("RandomInvert", factor, 0.0, 1.0);
  factor_ = Factor(lower, upper);
  check_color_value_range("RandomInvert", o_.value_range, /*sort=*/false);
  o_.data_format = check_data_format("RandomInvert", o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor RandomInvertImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);
  if (training) {
    const Tensor probability = per_image_uniform(x, factor_.values[0], factor_.values[1], next_seed(o_.seed));
    const Tensor draw = per_image_uniform(x, 0.0, 1.0, next_seed(o_.seed));
    x = where(less(draw, probability), o_.value_range[1] - x, x);
  }
  return from_batch(x, input.rank(), o_.data_format);
}

Config RandomInvertImpl::get_config() const { return layer_config(*this); }

// ---- RandomPosterization ----
RandomPosterizationImpl::RandomPosterizationImpl(Factor factor, RandomColorOptions o)
    : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  const auto [lower, upper] = base_factor_range("RandomPosterization", factor, 1.0, 8.0);
  factor_ = Factor(lower, upper);
  check_color_value_range("RandomPosterization", o_.value_range, /*sort=*/true);
  o_.data_format = check_data_format("RandomPosterization", o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor RandomPosterizationImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);
  if (!training) return from_batch(x, input.rank(), o_.data_format);
  // The kept bits k, as uint8 (Keras draws randint(lower, upper), upper excluded).
  const int64_t batch = x.shape()[0];
  const auto lower = static_cast<int64_t>(factor_.values[0]), upper = static_cast<int64_t>(factor_.values[1]);
  std::vector<double> kept(static_cast<std::size_t>(batch), static_cast<double>(lower));
  if (factor_.values[0] != factor_.values[1])
    kept = random::uniform({batch}, static_cast<double>(lower), static_cast<double>(upper), DType::int64,
                           next_seed(o_.seed))
               .to_vector<double>();
  // Shifting right then left by 8 - k: floor(v / 2^(8-k)) · 2^(8-k), exact in floating point.
  std::vector<double> step(kept.size());
  for (std::size_t i = 0; i < kept.size(); ++i) step[i] = std::ldexp(1.0, static_cast<int>(8 - kept[i]));
  const Tensor steps = Tensor(step, Shape{batch, 1, 1, 1}).cast(x.dtype()).to(x.device());
  const double lo = o_.value_range[0], hi = o_.value_range[1];
  const Tensor y = transform_value_range(x, lo, hi, 0, 255);
  // The cast to uint8: truncation, saturating at 0 and 255, NaN -> 0.
  const Tensor bytes = where(isnan(y), zeros_like(y), floor(clip(y, 0.0, 255.0)));
  x = transform_value_range(floor(bytes / steps) * steps, 0, 255, lo, hi);
  return from_batch(x, input.rank(), o_.data_format);
}

Config RandomPosterizationImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(SolarizationImpl, "Solarization")
KILN_REGISTER_LAYER(RandomInvertImpl, "RandomInvert")
KILN_REGISTER_LAYER(RandomPosterizationImpl, "RandomPosterization")

}  // namespace kiln::layers
