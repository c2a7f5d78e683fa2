// RandomRotation, RandomZoom, RandomTranslation and RandomShear: Keras 3's random draws and
// transform matrices, resampled by affine_transform (image_sampler.cpp).
#include "kiln/layers/random_affine_transforms.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

RandomAffineLayer::RandomAffineLayer(const std::string& cls, RandomAffineOptions o)
    : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  check_fill_and_interpolation(o_.fill_mode, o_.interpolation);
  o_.data_format = check_data_format(cls, o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor RandomAffineLayer::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);  // (B, H, W, C)
  if (training) {
    const Shape s = x.shape();
    x = affine_transform(x, transforms(s[0], s[1], s[2]), o_.interpolation, o_.fill_mode, o_.fill_value);
  }
  return from_batch(x, input.rank(), o_.data_format);
}

// ---- RandomRotation ----
RandomRotationImpl::RandomRotationImpl(Factor factor, RandomAffineOptions o) : RandomAffineLayer("RandomRotation", std::move(o)) {
  const auto [lower, upper] = base_factor_range("RandomRotation", factor, -1.0, 1.0);
  factor_ = Factor(lower, upper);
}

// BaseImagePreprocessingLayer._compute_affine_matrix: a rotation about the image centre.
std::vector<std::array<double, 8>> RandomRotationImpl::transforms(int64_t batch, int64_t height, int64_t width) {
  const auto angles = uniform_draws(batch, factor_.values[0] * 360.0, factor_.values[1] * 360.0, next_seed(o_.seed));
  const double cx = 0.5 * static_cast<double>(width - 1), cy = 0.5 * static_cast<double>(height - 1);
  std::vector<std::array<double, 8>> t;
  for (double degrees : angles) {
    const double theta = degrees * std::numbers::pi / 180.0, c = std::cos(theta), s = std::sin(theta);
    const double a0 = c, a1 = -s, b0 = s, b1 = c;
    t.push_back({a0, a1, cx - cx * a0 - cy * a1, b0, b1, cy - cx * b0 - cy * b1, 0, 0});
  }
  return t;
}

Config RandomRotationImpl::get_config() const { return layer_config(*this); }

// ---- RandomZoom ----
RandomZoomImpl::RandomZoomImpl(Factor height_factor, std::optional<Factor> width_factor, RandomAffineOptions o)
    : RandomAffineLayer("RandomZoom", std::move(o)), height_factor_(std::move(height_factor)), width_factor_(std::move(width_factor)) {
  height_range_ = axis_factor_range("RandomZoom", "height_factor", height_factor_, /*zoom=*/true);
  if (width_factor_) width_range_ = axis_factor_range("RandomZoom", "width_factor", *width_factor_, /*zoom=*/true);
}

// RandomZoom._get_zoom_matrix: scales about the centre; the width scale repeats the
// height draw unless width_factor is given.
std::vector<std::array<double, 8>> RandomZoomImpl::transforms(int64_t batch, int64_t height, int64_t width) {
  const auto hz = uniform_draws(batch, 1.0 + height_range_.first, 1.0 + height_range_.second, next_seed(o_.seed));
  const auto wz = width_factor_ ? uniform_draws(batch, 1.0 + width_range_.first, 1.0 + width_range_.second, next_seed(o_.seed)) : hz;
  std::vector<std::array<double, 8>> t;
  for (std::size_t i = 0; i < hz.size(); ++i) {
    const double x_offset = (static_cast<double>(width) - 1.0) / 2.0 * (1.0 - wz[i]);
    const double y_offset = (static_cast<double>(height) - 1.0) / 2.0 * (1.0 - hz[i]);
    t.push_back({wz[i], 0, x_offset, 0, hz[i], y_offset, 0, 0});
  }
  return t;
}

Config RandomZoomImpl::get_config() const { return layer_config(*this); }

// ---- RandomTranslation ----
RandomTranslationImpl::RandomTranslationImpl(Factor height_factor, Factor width_factor, RandomAffineOptions o)
    : RandomAffineLayer("RandomTranslation", std::move(o)), height_factor_(std::move(height_factor)), width_factor_(std::move(width_factor)) {
  height_range_ = axis_factor_range("RandomTranslation", "height_factor", height_factor_, /*zoom=*/false);
  width_range_ = axis_factor_range("RandomTranslation", "width_factor", width_factor_, /*zoom=*/false);
}

// RandomTranslation._get_translation_matrix: output (x, y) samples input (x - dx, y - dy).
std::vector<std::array<double, 8>> RandomTranslationImpl::transforms(int64_t batch, int64_t height, int64_t width) {
  const auto dy = uniform_draws(batch, height_range_.first, height_range_.second, next_seed(o_.seed));
  const auto dx = uniform_draws(batch, width_range_.first, width_range_.second, next_seed(o_.seed));
  std::vector<std::array<double, 8>> t;
  for (std::size_t i = 0; i < dy.size(); ++i)
    t.push_back({1, 0, -dx[i] * static_cast<double>(width), 0, 1, -dy[i] * static_cast<double>(height), 0, 0});
  return t;
}

Config RandomTranslationImpl::get_config() const { return layer_config(*this); }

// ---- RandomShear ----
namespace {
// RandomShear._set_factor_with_name. A number lies in [0, 1]; the values of a pair may
// also be negative, as the pair Keras writes for a number f is (-f, f).
Factor shear_factor(const Factor& f, const std::string& arg) {
  const std::string head = "RandomShear: the `factor` argument should be a number (or a list of two numbers) in the range [0, 1.0]. ";
  if (f.values.size() == 2) {
    for (double v : f.values)
      if (v > 1.0 || v < -1.0) throw ValueError(head + "Received: input_number=" + number_text(v));
    return Factor(std::min(f.values[0], f.values[1]), std::max(f.values[0], f.values[1]));
  }
  if (f.values.size() != 1) throw ValueError(head + "Received: " + arg + "=" + factor_text(f));
  if (f.values[0] > 1.0 || f.values[0] < 0.0) throw ValueError(head + "Received: input_number=" + number_text(f.values[0]));
  return Factor(-f.values[0], f.values[0]);
}
}  // namespace

RandomShearImpl::RandomShearImpl(Factor x_factor, Factor y_factor, RandomAffineOptions o)
    : RandomAffineLayer("RandomShear", std::move(o)), x_factor_(shear_factor(x_factor, "x_factor")),
      y_factor_(shear_factor(y_factor, "y_factor")) {}

// RandomShear._get_shear_matrix: [1, sx, 0, sy, 1, 0, 0, 0], one sign flip for both.
std::vector<std::array<double, 8>> RandomShearImpl::transforms(int64_t batch, int64_t, int64_t) {
  const auto invert = uniform_draws(batch, 0.0, 1.0, next_seed(o_.seed));
  const auto sy = uniform_draws(batch, y_factor_.values[0], y_factor_.values[1], next_seed(o_.seed));
  const auto sx = uniform_draws(batch, x_factor_.values[0], x_factor_.values[1], next_seed(o_.seed));
  std::vector<std::array<double, 8>> t;
  for (std::size_t i = 0; i < sx.size(); ++i) {
    const double sign = invert[i] > 0.5 ? -1.0 : 1.0;
    t.push_back({1, sign * sx[i], 0, sign * sy[i], 1, 0, 0, 0});
  }
  return t;
}

Config RandomShearImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(RandomRotationImpl, "RandomRotation")
KILN_REGISTER_LAYER(RandomShearImpl, "RandomShear")
KILN_REGISTER_LAYER(RandomZoomImpl, "RandomZoom")
KILN_REGISTER_LAYER(RandomTranslationImpl, "RandomTranslation")

}  // namespace kiln::layers
