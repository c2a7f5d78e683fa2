// RandomGrayscale and RandomColorDegeneration as Keras 3.15 computes them
// (random_grayscale.py, random_color_degeneration.py, the JAX backend's rgb_to_grayscale).
#include <cstdio>
#include <string>

#include "color_utils.h"
#include "kiln/layers/color_augment.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

// ---- RandomGrayscale ----
RandomGrayscaleImpl::RandomGrayscaleImpl(double factor, RandomGrayscaleOptions o)
    : RandomImageLayer(base_options(o)), factor_(factor), o_(std::move(o)) {
  if (factor < 0 || factor > 1) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", factor);
    throw ValueError(std::string("RandomGrayscale: `factor` should be between 0 and 1. Received: factor=") + buf);
  }
  o_.data_format = check_data_format("RandomGrayscale", o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor RandomGrayscaleImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);
  if (training) {
    const Tensor apply = less(per_image_uniform(x, 0.0, 1.0, next_seed(o_.seed)), scalar_like(factor_, x));
    // The (B, H, W, 1) luma fills every channel of the chosen images.
    x = where(apply, rgb_to_grayscale("RandomGrayscale", x), x);
  }
  return from_batch(x, input.rank(), o_.data_format);
}

Config RandomGrayscaleImpl::get_config() const { return layer_config(*this); }

// ---- RandomColorDegeneration ----
RandomColorDegenerationImpl::RandomColorDegenerationImpl(Factor factor, RandomColorOptions o)
    : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  const auto [lower, upper] = base_factor_range("RandomColorDegeneration", factor, -1.0, 1.0);
  factor_ = Factor(lower, upper);
  check_color_value_range("RandomColorDegeneration", o_.value_range, /*sort=*/true);
  o_.data_format = check_data_format("RandomColorDegeneration", o_.data_format);
  apply_input_shape(*this, o_);
}

Shape RandomColorDegenerationImpl::compute_output_shape(const Shape& input_shape) {
  if (input_shape.size() != 3 && input_shape.size() != 4)
    throw ValueError("Layer '" + name() + "' (RandomColorDegeneration): invalid images rank: expected rank 3 (single "
                     "image) or rank 4 (batch of images). Received: input_shape=" + input_shape.to_string());
  const int64_t channels = input_shape[input_shape.size() - (o_.data_format == "channels_last" ? 1 : 3)];
  if (channels >= 0 && channels != 3)
    throw ValueError("Layer '" + name() + "' (RandomColorDegeneration): input images must have 3 channels, but "
                     "received images with " + std::to_string(channels) + " channels.");
  return input_shape;
}

Tensor RandomColorDegenerationImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);
  if (training) {
    const Tensor f = per_image_uniform(x, factor_.values[0], factor_.values[1], next_seed(o_.seed));
    const Tensor degenerate = rgb_to_grayscale("RandomColorDegeneration", x);
    x = clip(x + f * (degenerate - x), o_.value_range[0], o_.value_range[1]);
  }
  return from_batch(x, input.rank(), o_.data_format);
}

Config RandomColorDegenerationImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(RandomGrayscaleImpl, "RandomGrayscale")
KILN_REGISTER_LAYER(RandomColorDegenerationImpl, "RandomColorDegeneration")

}  // namespace kiln::layers
