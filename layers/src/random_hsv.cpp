// RandomHue, RandomSaturation and RandomSharpness as Keras 3.15 computes them,
// with its JAX backend's RGB <-> HSV conversion.
#include "kiln/layers/random_color.h"

#include <algorithm>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

namespace {

void checked_value_range(const std::string& cls, std::vector<double>& v, bool sort) {
  if (v.size() != 2)
    throw ValueError(cls + ": the `value_range` argument should be a list of two numbers. Received: value_range=" +
                     Config(v).dump());
  if (sort) std::sort(v.begin(), v.end());
}

/// The checks each colour layer's constructor makes: its (lower, upper)
/// factor within [lo, hi], its value range, its data format.
Factor checked(const std::string& cls, const Factor& f, double lo, double hi, RandomColorOptions& o, bool sort_range) {
  const auto [lower, upper] = base_factor_range(cls, f, lo, hi);
  checked_value_range(cls, o.value_range, sort_range);
  o.data_format = check_data_format(cls, o.data_format);
  return Factor(lower, upper);
}

/// (B, 1, 1) draws, one per image.
Tensor image_draws(const Tensor& x, double lo, double hi, std::optional<uint64_t> seed) {
  return random::uniform({x.shape()[0], 1, 1}, lo, hi, x.dtype(), seed);
}

Tensor select(const Tensor& cond, const Tensor& a, const Tensor& b) { return where(cond, a, b); }

/// (B, H, W, 3) RGB -> HSV, each in [0, 1] for RGB in [0, 1].
Tensor rgb_to_hsv(const Tensor& images) {
  const Tensor zero = scalar_like(0.0, images), one = scalar_like(1.0, images);
  const Tensor x = select(less(abs(images), scalar_like(1.1920929e-07, images)), zero, images);
  auto planes = split(x, 3, 3);
  const Tensor r = squeeze(planes[0], {3}), g = squeeze(planes[1], {3}), b = squeeze(planes[2], {3});
  const Tensor value = maximum(maximum(r, g), b);
  const Tensor range = value - minimum(minimum(r, g), b);
  const Tensor safe_value = select(greater(value, zero), value, one);
  const Tensor safe_range = select(greater(range, zero), range, one);
  const Tensor saturation = select(greater(value, zero), range / safe_value, zeros_like(value));
  const Tensor norm = one / (safe_range * 6.0);
  Tensor hue = select(equal(value, g), norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0);
  hue = select(equal(value, r), norm * (g - b), hue);
  hue = select(greater(range, zero), hue, zeros_like(hue)) + cast(less(hue, zero), hue.dtype());
  return stack({hue, saturation, value}, 3);
}

/// (B, H, W, 3) HSV -> RGB.
Tensor hsv_to_rgb(const Tensor& images) {
  auto planes = split(images, 3, 3);
  const Tensor h = squeeze(planes[0], {3}), s = squeeze(planes[1], {3}), v = squeeze(planes[2], {3});
  const Tensor dh = (h - floor(h)) * 6.0;
  const Tensor dr = clip(abs(dh - 3.0) - 1.0, 0.0, 1.0);
  const Tensor dg = clip(2.0 - abs(dh - 2.0), 0.0, 1.0);
  const Tensor db = clip(2.0 - abs(dh - 4.0), 0.0, 1.0);
  const Tensor one_minus_s = 1.0 - s;
  return stack({v * (one_minus_s + s * dr), v * (one_minus_s + s * dg), v * (one_minus_s + s * db)}, 3);
}

/// Replaces channel `c` of (B, H, W, 3) images.
Tensor with_channel(const Tensor& images, int c, const Tensor& plane) {
  auto planes = split(images, 3, 3);
  planes[static_cast<std::size_t>(c)] = expand_dims(plane, 3);
  return concat(planes, 3);
}

Tensor channel(const Tensor& images, int c) { return squeeze(split(images, 3, 3)[static_cast<std::size_t>(c)], {3}); }

void require_rgb(const Layer& l, const Tensor& x) {
  if (x.shape()[3] != 3)
    throw ShapeError("Layer '" + l.name() + "' (" + l.class_name() + ") expects RGB images with 3 channels, but "
                     "received shape " + x.shape().to_string());
}

}  // namespace

// ---- RandomHue ----
RandomHueImpl::RandomHueImpl(Factor factor, RandomColorOptions o) : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  factor_ = checked("RandomHue", factor, 0.0, 1.0, o_, false);
  apply_input_shape(*this, o_);
}

Tensor RandomHueImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);
  if (training) {
    require_rgb(*this, x);
    const auto seed = next_seed(o_.seed);
    const Tensor flip = image_draws(x, 0.0, 1.0, seed);
    const Tensor invert = select(greater(flip, scalar_like(0.5, flip)), -ones_like(flip), ones_like(flip));
    const Tensor shift = invert * image_draws(x, factor_.values[0], factor_.values[1], seed) * 0.5;
    const double lo = o_.value_range[0], span = o_.value_range[1] - o_.value_range[0];
    Tensor hsv = rgb_to_hsv((x - lo) / span);
    Tensor h = channel(hsv, 0) + shift;
    h = select(greater(h, scalar_like(1.0, h)), h - 1.0, h);
    h = select(less(h, scalar_like(0.0, h)), h + 1.0, h);
    x = clip(hsv_to_rgb(with_channel(hsv, 0, h)), 0.0, 1.0) * span + lo;
  }
  return from_batch(x, input.rank(), o_.data_format);
}

Config RandomHueImpl::get_config() const { return layer_config(*this); }

// ---- RandomSaturation ----
RandomSaturationImpl::RandomSaturationImpl(Factor factor, RandomColorOptions o)
    : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  factor_ = checked("RandomSaturation", factor, -1.0, 1.0, o_, true);
  apply_input_shape(*this, o_);
}

Tensor RandomSaturationImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);
  if (training) {
    require_rgb(*this, x);
    Tensor f = image_draws(x, factor_.values[0], factor_.values[1], next_seed(o_.seed));
    f = f / (1.0 - f + 1e-7);
    const Tensor hsv = rgb_to_hsv(x);
    // Keras clips the scaled saturation to value_range, as written.
    const Tensor s = clip(channel(hsv, 1) * f, o_.value_range[0], o_.value_range[1]);
    x = hsv_to_rgb(with_channel(hsv, 1, s));
  }
  return from_batch(x, input.rank(), o_.data_format);
}

Config RandomSaturationImpl::get_config() const { return layer_config(*this); }

// ---- RandomSharpness ----
RandomSharpnessImpl::RandomSharpnessImpl(Factor factor, RandomColorOptions o)
    : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  factor_ = checked("RandomSharpness", factor, 0.0, 1.0, o_, true);
  apply_input_shape(*this, o_);
}

Tensor RandomSharpnessImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);
  if (training) {
    const Tensor f = expand_dims(image_draws(x, factor_.values[0], factor_.values[1], next_seed(o_.seed)), 3) * 2.0;
    // The 3x3 smoothing of every channel with zero padding ("same"): 1/13 around, 5/13 at the centre.
    const int64_t b = x.shape()[0], h = x.shape()[1], w = x.shape()[2], c = x.shape()[3];
    Tensor padded = concat({zeros({b, 1, w, c}, x.dtype()), x, zeros({b, 1, w, c}, x.dtype())}, 1);
    padded = concat({zeros({b, h + 2, 1, c}, x.dtype()), padded, zeros({b, h + 2, 1, c}, x.dtype())}, 2);
    Tensor smooth = x * (5.0 / 13.0);
    for (int64_t dy = 0; dy < 3; ++dy)
      for (int64_t dx = 0; dx < 3; ++dx)
        if (dy != 1 || dx != 1)
          smooth = smooth + slice(padded, {Slice(), Slice(dy, dy + h), Slice(dx, dx + w), Slice()}) * (1.0 / 13.0);
    x = clip(x + (1.0 - f) * (smooth - x), o_.value_range[0], o_.value_range[1]);
  }
  return from_batch(x, input.rank(), o_.data_format);
}

Config RandomSharpnessImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(RandomHueImpl, "RandomHue")
KILN_REGISTER_LAYER(RandomSaturationImpl, "RandomSaturation")
KILN_REGISTER_LAYER(RandomSharpnessImpl, "RandomSharpness")

}  // namespace kiln::layers
