// RandomContrast and RandomBrightness, as Keras 3.15 computes them (random_contrast.py,
// random_brightness.py).
#include "kiln/layers/random_color.h"

#include <algorithm>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/clip_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "kiln/ops/reduce_ops.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

namespace {
void check_value_range(const std::vector<double>& v) {
  if (v.size() != 2)
    throw ValueError("The `value_range` argument should be a list of two numbers. Received: value_range=" + Config(v).dump());
}

// One draw per image of x (B, H, W, C), shaped (B, 1, 1, 1).
Tensor per_image(const Tensor& x, double lo, double hi, std::optional<uint64_t> seed) {
  return random::uniform({x.shape()[0], 1, 1, 1}, lo, hi, x.dtype(), seed);
}
}  // namespace

// ---- RandomContrast ----
RandomContrastImpl::RandomContrastImpl(Factor factor, RandomColorOptions o) : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  const auto [lower, upper] = base_factor_range("RandomContrast", factor, 0.0, 1.0);
  factor_ = Factor(lower, upper);
  check_value_range(o_.value_range);
  o_.data_format = check_data_format("RandomContrast", o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor RandomContrastImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);  // (B, H, W, C)
  if (training) {
    const Tensor f = per_image(x, 1.0 - factor_.values[0], 1.0 + factor_.values[1], next_seed(o_.seed));
    const Tensor mean_hw = mean(x, {1, 2}, /*keepdims=*/true);
    x = clip((x - mean_hw) * f + mean_hw, o_.value_range[0], o_.value_range[1]);
  }
  return from_batch(x, input.rank(), o_.data_format);
}

Config RandomContrastImpl::get_config() const { return layer_config(*this); }

// ---- RandomBrightness ----
RandomBrightnessImpl::RandomBrightnessImpl(Factor factor, RandomColorOptions o)
    : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  const auto [lower, upper] = base_factor_range("RandomBrightness", factor, -1.0, 1.0);
  factor_ = Factor(lower, upper);
  check_value_range(o_.value_range);
  std::sort(o_.value_range.begin(), o_.value_range.end());
  o_.data_format = check_data_format("RandomBrightness", o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor RandomBrightnessImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);
  if (training) {
    const double span = o_.value_range[1] - o_.value_range[0];
    x = clip(x + per_image(x, factor_.values[0], factor_.values[1], next_seed(o_.seed)) * span, o_.value_range[0],
             o_.value_range[1]);
  }
  return from_batch(x, input.rank(), o_.data_format);
}

Config RandomBrightnessImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(RandomContrastImpl, "RandomContrast")
KILN_REGISTER_LAYER(RandomBrightnessImpl, "RandomBrightness")

}  // namespace kiln::layers
