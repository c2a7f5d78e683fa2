// The affine resampler of the image augmentation layers: for every output pixel, its
// interpolation taps (input pixel, weight) are worked out here, then one gather of the
// input's pixels and a weighted sum make the output, so gradients reach the input.
#include <algorithm>
#include <cmath>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "random_image_utils.h"

namespace kiln::layers::detail {

namespace {

int64_t floor_mod(int64_t a, int64_t n) { return ((a % n) + n) % n; }

// jax.scipy.ndimage's index fixers: where a tap outside [0, size) reads from.
int64_t fix_index(int64_t i, int64_t size, const std::string& mode) {
  if (mode == "nearest") return std::clamp<int64_t>(i, 0, size - 1);
  if (mode == "wrap") return floor_mod(i, size);
  if (mode == "mirror") {
    // _mirror_index_fixer: |(i + s) mod 2s - s|, s = size - 1 (one pixel: always 0).
    const int64_t s = size - 1;
    return s == 0 ? 0 : std::abs(floor_mod(i + s, 2 * s) - s);
  }
  if (mode == "reflect") {
    // _reflect_index_fixer: floor_divide(mirror(2i + 1, 2·size + 1) - 1, 2), mirror(j, n) = |(j + s) mod 2s - s|, s = n - 1.
    const int64_t s = 2 * size;
    const int64_t m = std::abs(floor_mod(2 * i + 1 + s, 2 * s) - s);
    return (m - 1) >= 0 ? (m - 1) / 2 : -1;
  }
  return i;  // constant: out-of-range taps read fill_value instead
}

struct Tap {
  int64_t index;  // into the image's rows of (B·H·W, C); -1: fill_value
  double weight;
};

// The taps of one coordinate along one axis (JAX's _linear/_nearest_indices_and_weights).
std::vector<std::pair<int64_t, double>> axis_taps(double c, bool bilinear) {
  if (!bilinear) return {{static_cast<int64_t>(std::round(c)), 1.0}};  // std::round: half away from zero, as lax.round
  const double lower = std::floor(c), upper_weight = c - lower;
  return {{static_cast<int64_t>(lower), 1.0 - upper_weight}, {static_cast<int64_t>(lower) + 1, upper_weight}};
}

}  // namespace

Tensor map_coordinates(const Tensor& images, const std::vector<double>& rows, const std::vector<double>& cols,
                       const std::string& interpolation, const std::string& fill_mode, double fill_value) {
  const Shape s = images.shape();
  const int64_t B = s[0], H = s[1], W = s[2], C = s[3];
  const bool bilinear = interpolation == "bilinear", constant = fill_mode == "constant";
  const int64_t K = bilinear ? 4 : 1;
  std::vector<int32_t> index(static_cast<std::size_t>(B * H * W * K), 0);
  std::vector<double> weight(index.size(), 0.0), fill(static_cast<std::size_t>(B * H * W), 0.0);
  for (int64_t p = 0; p < B * H * W; ++p) {
    const int64_t b = p / (H * W);
    const std::size_t pu = static_cast<std::size_t>(p);
    std::size_t k = 0;
    for (auto [r, wr] : axis_taps(rows[pu], bilinear))
      for (auto [c, wc] : axis_taps(cols[pu], bilinear)) {
        const std::size_t slot = pu * static_cast<std::size_t>(K) + k++;
        if (constant && (r < 0 || r >= H || c < 0 || c >= W)) {
          fill[pu] += wr * wc * fill_value;
          continue;
        }
        const int64_t fr = fix_index(r, H, fill_mode), fc = fix_index(c, W, fill_mode);
        index[slot] = static_cast<int32_t>((b * H + fr) * W + fc);
        weight[slot] = wr * wc;
      }
  }
  const Tensor pixels = reshape(images, {B * H * W, C});
  const Tensor taps = gather(pixels, Tensor(index, Shape{B * H * W, K}), 0);  // (B·H·W, K, C)
  const Tensor w = cast(Tensor(weight, Shape{B * H * W, K, 1}), images.dtype());
  Tensor out = sum(taps * w, 1);  // (B·H·W, C)
  if (constant) out = out + cast(Tensor(fill, Shape{B * H * W, 1}), images.dtype());
  return reshape(out, s);
}

Tensor affine_transform(const Tensor& images, const std::vector<AffineTransform>& transforms, const std::string& interpolation,
                        const std::string& fill_mode, double fill_value) {
  const Shape s = images.shape();
  const int64_t B = s[0], H = s[1], W = s[2];
  std::vector<double> rows, cols;
  rows.reserve(static_cast<std::size_t>(B * H * W));
  cols.reserve(rows.capacity());
  for (int64_t b = 0; b < B; ++b) {
    const AffineTransform& t = transforms[static_cast<std::size_t>(b)];
    for (int64_t y = 0; y < H; ++y)
      for (int64_t x = 0; x < W; ++x) {
        const double k = t[6] * x + t[7] * y + 1.0;
        cols.push_back((t[0] * x + t[1] * y + t[2]) / k);
        rows.push_back((t[3] * x + t[4] * y + t[5]) / k);
      }
  }
  return map_coordinates(images, rows, cols, interpolation, fill_mode, fill_value);
}

}  // namespace kiln::layers::detail
