// The value-range and grayscale helpers of the colour layers (Keras 3.15).
#include "color_utils.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "kiln/core/config.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln::layers::detail {

void check_color_value_range(const std::string& cls, std::vector<double>& v, bool sort) {
  if (v.size() != 2)
    throw ValueError(cls + ": the `value_range` argument should be a list of two numbers. Received: value_range=" +
                     Config(v).dump());
  if (sort) std::sort(v.begin(), v.end());
}

Tensor transform_value_range(const Tensor& x, double from_lo, double from_hi, double to_lo, double to_hi) {
  if (from_lo == to_lo && from_hi == to_hi) return x;
  // The bounds become tensors of x's dtype before they are combined, as in Keras.
  const Tensor a = scalar_like(from_lo, x), b = scalar_like(from_hi, x);
  const Tensor c = scalar_like(to_lo, x), d = scalar_like(to_hi, x);
  return (x - a) / (b - a) * (d - c) + c;
}

Tensor per_image_uniform(const Tensor& x, double lo, double hi, std::optional<uint64_t> seed) {
  return random::uniform({x.shape()[0], 1, 1, 1}, lo, hi, x.dtype(), seed);
}

Tensor rgb_to_grayscale(const std::string& layer, const Tensor& images) {
  const int64_t channels = images.shape()[3];
  if (channels == 1) return images;
  if (channels != 3)
    throw ValueError(layer + ": invalid channel size: expected 3 (RGB) or 1 (Grayscale). Received input with shape: "
                     "images.shape=" + images.shape().to_string());
  const Tensor weights = Tensor(std::vector<double>{0.2989, 0.5870, 0.1140}, Shape{3}).cast(images.dtype()).to(images.device());
  return sum(images * weights, {3}, /*keepdims=*/true);
}

}  // namespace kiln::layers::detail
