// RandomErasing as Keras 3.15 computes it (random_erasing.py).
#include "kiln/layers/random_erasing.h"

#include <cmath>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

RandomErasingImpl::RandomErasingImpl(Factor factor, RandomErasingOptions o)
    : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  const auto [lower, upper] = base_factor_range("RandomErasing", factor, 0.0, 1.0);
  factor_ = Factor(lower, upper);
  const auto [s0, s1] = base_factor_range("RandomErasing", o_.scale, 0.0, 1.0, "scale");
  o_.scale = Factor(s0, s1);
  if (o_.fill_value && o_.fill_value->size() != 1 && o_.fill_value->size() != 3)
    throw ValueError("RandomErasing: The `fill_value` argument should be a number (or a list of three numbers). "
                     "Received: fill_value=" + Config(*o_.fill_value).dump());
  if (o_.value_range.size() != 2)
    throw ValueError("RandomErasing: the `value_range` argument should be a list of two numbers. Received: value_range=" +
                     Config(o_.value_range).dump());
  o_.data_format = check_data_format("RandomErasing", o_.data_format);
  apply_input_shape(*this, o_);
}

// _get_fill_value: noise, a number, or a list along the input's last axis (the
// channels, or the width for channels_first, as numpy broadcasting puts it).
Tensor RandomErasingImpl::fill(const Tensor& x) {
  const Shape s = x.shape();
  Tensor f;
  if (!o_.fill_value) {
    f = random::normal(s, 0.0, 1.0, x.dtype(), next_seed(o_.seed)) * o_.value_range[1];
  } else if (o_.fill_value->size() == 1) {
    f = zeros(s, x.dtype()) + (*o_.fill_value)[0];
  } else {
    const bool first = o_.data_format == "channels_first";
    const int64_t along = first ? s[2] : s[3];
    if (along != 3)
      throw ValueError("RandomErasing: a `fill_value` of three numbers needs inputs whose last axis has 3 entries. "
                       "Received: inputs with " + std::to_string(along));
    const Tensor v(*o_.fill_value, first ? Shape{1, 1, 3, 1} : Shape{1, 1, 1, 3});
    f = broadcast_to(cast(v, x.dtype()), s);
  }
  return clip(f, o_.value_range[0], o_.value_range[1]);
}

Tensor RandomErasingImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);  // (B, H, W, C)
  if (training) {
    const int64_t batch = x.shape()[0], height = x.shape()[1], width = x.shape()[2];
    // One area fraction per side and image; the box side is its square root.
    const auto wx = uniform_draws(batch, o_.scale.values[0], o_.scale.values[1], next_seed(o_.seed));
    const auto wy = uniform_draws(batch, o_.scale.values[0], o_.scale.values[1], next_seed(o_.seed));
    std::vector<double> rx, ry;
    for (int64_t i = 0; i < batch; ++i) {
      rx.push_back(std::sqrt(wx[static_cast<std::size_t>(i)]));
      ry.push_back(std::sqrt(wy[static_cast<std::size_t>(i)]));
    }
    const auto xb = crop_bounds(rx, width, next_seed(o_.seed)), yb = crop_bounds(ry, height, next_seed(o_.seed));
    const auto seed_p = next_seed(o_.seed), seed_u = next_seed(o_.seed);
    const auto apply = apply_draws(batch, factor_.values[0], factor_.values[1], seed_p, seed_u);
    std::vector<Box> boxes;  // an image left as it is gets an empty box
    for (std::size_t i = 0; i < xb.size(); ++i)
      boxes.push_back(apply[i] ? Box{xb[i].first, xb[i].second, yb[i].first, yb[i].second} : Box{0, 0, 0, 0});
    x = where(box_mask(boxes, height, width), fill(x), x);
  }
  return from_batch(x, input.rank(), o_.data_format);
}

// Keras writes a single fill value as a number.
Config RandomErasingImpl::get_config() const {
  Config c = layer_config(*this);
  if (o_.fill_value && o_.fill_value->size() == 1) c["fill_value"] = (*o_.fill_value)[0];
  return c;
}

KILN_REGISTER_LAYER(RandomErasingImpl, "RandomErasing")

}  // namespace kiln::layers
