// MixUp and CutMix as Keras 3.15 computes them (mix_up.py, cut_mix.py).
#include "kiln/layers/image_mixing.h"

#include <algorithm>
#include <cmath>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

namespace {
// Per-image weights shaped (B, 1, ..., 1) to broadcast against a (B, ...) tensor of `rank`.
Tensor per_sample(const std::vector<double>& w, int64_t rank, DType dtype) {
  std::vector<int64_t> dims(static_cast<std::size_t>(std::max<int64_t>(rank, 1)), 1);
  dims[0] = static_cast<int64_t>(w.size());
  return cast(Tensor(w, Shape(dims)), dtype);
}
}  // namespace

ImageMixingLayer::ImageMixingLayer(const std::string& cls, ImageMixingOptions o)
    : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  o_.data_format = check_data_format(cls, o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor ImageMixingLayer::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);  // (B, H, W, C)
  if (training) x = mix(x).images;
  return from_batch(x, input.rank(), o_.data_format);
}

std::pair<Tensor, Tensor> ImageMixingLayer::call_with_labels(const Tensor& images, const Tensor& labels,
                                                             std::optional<bool> training) {
  const bool train = training.value_or(context_training().value_or(true));
  Tensor x = to_batch(images, o_.data_format);
  if (!train) return {from_batch(x, images.rank(), o_.data_format), labels};
  // One image goes with one label: both get a batch axis of 1 (Keras's transform_single_label).
  const bool single = images.rank() == 3;
  Tensor y = cast(single ? expand_dims(labels, 0) : labels, x.dtype());
  if (y.rank() == 0 || y.shape()[0] != x.shape()[0])
    throw ValueError("Layer '" + name() + "' (" + class_name() + "): expected labels with one entry per image (" +
                     std::to_string(x.shape()[0]) + "). Received: labels.shape=" + labels.shape().to_string());
  Mix m = mix(x);
  const Tensor w = per_sample(m.label_weight, y.rank(), y.dtype());
  y = w * y + (1.0 - w) * take_batch(y, m.permutation);
  return {from_batch(m.images, images.rank(), o_.data_format), single ? squeeze(y, {0}) : y};
}

// ---- MixUp ----
MixUpImpl::MixUpImpl(double alpha, ImageMixingOptions o) : ImageMixingLayer("MixUp", std::move(o)), alpha_(alpha) {
  if (!(alpha_ > 0.0))
    throw ValueError("MixUp: the `alpha` argument should be a number greater than 0 (the Beta distribution's "
                     "concentration). Received: alpha=" + number_text(alpha_));
}

ImageMixingLayer::Mix MixUpImpl::mix(const Tensor& x) {
  const int64_t batch = x.shape()[0];
  Mix m;
  m.permutation = permutation_draw(batch, next_seed(o_.seed));
  m.label_weight = beta_draws(batch, alpha_, alpha_, next_seed(o_.seed));
  const Tensor w = per_sample(m.label_weight, 4, x.dtype());
  m.images = w * x + (1.0 - w) * take_batch(x, m.permutation);
  return m;
}

Config MixUpImpl::get_config() const { return layer_config(*this); }

// ---- CutMix ----
CutMixImpl::CutMixImpl(Factor factor, ImageMixingOptions o) : ImageMixingLayer("CutMix", std::move(o)) {
  const auto [lower, upper] = base_factor_range("CutMix", factor, 0.0, 1.0);
  factor_ = Factor(lower, upper);
}

// The box's sides are sqrt(1 - λ) of the image's, so its area fraction is 1 - λ up
// to rounding; the labels take the fraction of the box as drawn, before pixels.
ImageMixingLayer::Mix CutMixImpl::mix(const Tensor& x) {
  const int64_t batch = x.shape()[0], height = x.shape()[1], width = x.shape()[2];
  const double a = uniform_draws(1, factor_.values[0], factor_.values[1], next_seed(o_.seed))[0] + 1e-6;
  const auto lambda = beta_draws(batch, a, a, next_seed(o_.seed));
  std::vector<double> ratio;
  for (double l : lambda) ratio.push_back(std::sqrt(1.0 - l));
  const auto xb = crop_bounds(ratio, width, next_seed(o_.seed)), yb = crop_bounds(ratio, height, next_seed(o_.seed));
  Mix m;
  std::vector<Box> boxes;
  for (std::size_t i = 0; i < xb.size(); ++i) {
    boxes.push_back({xb[i].first, xb[i].second, yb[i].first, yb[i].second});
    const double area = (xb[i].second - xb[i].first) * (yb[i].second - yb[i].first);
    m.label_weight.push_back(1.0 - area / static_cast<double>(width * height));
  }
  m.permutation = permutation_draw(batch, next_seed(o_.seed));
  m.images = where(box_mask(boxes, height, width), take_batch(x, m.permutation), x);
  return m;
}

Config CutMixImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(MixUpImpl, "MixUp")
KILN_REGISTER_LAYER(CutMixImpl, "CutMix")

}  // namespace kiln::layers
