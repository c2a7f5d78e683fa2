// RandomPerspective and RandomElasticTransform as Keras 3.15 computes them
// (random_perspective.py, random_elastic_transform.py and the JAX backend's
// perspective_transform, compute_homography_matrix and elastic_transform).
#include "kiln/layers/random_warps.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

namespace {

using Point = std::array<double, 2>;

// compute_homography_matrix: the 8 numbers of the map taking each end point to its
// start point, from the 8x8 system Keras solves (Gaussian elimination, partial pivoting).
AffineTransform homography(const std::array<Point, 4>& start, const std::array<Point, 4>& end) {
  std::array<std::array<double, 9>, 8> m{};  // [coefficients | target]
  for (std::size_t k = 0; k < 4; ++k) {
    const double ex = end[k][0], ey = end[k][1], sx = start[k][0], sy = start[k][1];
    m[k] = {ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey, sx};
    m[k + 4] = {0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey, sy};
  }
  for (std::size_t c = 0; c < 8; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < 8; ++r)
      if (std::abs(m[r][c]) > std::abs(m[pivot][c])) pivot = r;
    std::swap(m[c], m[pivot]);
    for (std::size_t r = 0; r < 8; ++r) {
      if (r == c || m[c][c] == 0.0) continue;
      const double f = m[r][c] / m[c][c];
      for (std::size_t j = c; j < 9; ++j) m[r][j] -= f * m[c][j];
    }
  }
  AffineTransform t{};
  for (std::size_t i = 0; i < 8; ++i) t[i] = m[i][8] / m[i][i];
  return t;
}

void check_range_pair(const std::string& cls, const std::vector<double>& v) {
  if (v.size() != 2)
    throw ValueError(cls + ": the `value_range` argument should be a list of two numbers. Received: value_range=" +
                     Config(v).dump());
}

}  // namespace

// ---- RandomPerspective ----
RandomPerspectiveImpl::RandomPerspectiveImpl(Factor factor, RandomPerspectiveOptions o)
    : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  const auto [lower, upper] = base_factor_range("RandomPerspective", factor, 0.0, 1.0);
  factor_ = Factor(lower, upper);
  if (o_.scale < 0.0 || o_.scale > 1.0)
    throw ValueError("RandomPerspective: The `scale` argument should be a number in the range [0,1]. Received: scale=" +
                     number_text(o_.scale));
  if (o_.interpolation != "nearest" && o_.interpolation != "bilinear")
    throw ValueError("Unknown `interpolation` " + o_.interpolation + ". Expected of one ('nearest', 'bilinear').");
  o_.data_format = check_data_format("RandomPerspective", o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor RandomPerspectiveImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);  // (B, H, W, C)
  if (training) {
    const int64_t batch = x.shape()[0], height = x.shape()[1], width = x.shape()[2];
    const auto seed_p = next_seed(o_.seed), seed_u = next_seed(o_.seed);
    const auto apply = apply_draws(batch, factor_.values[0], factor_.values[1], seed_p, seed_u);
    // (B, 4, 2) relative displacements of the corners; the end point is start · (1 + d).
    const auto d = uniform_draws(batch * 8, -0.5 * o_.scale, 0.5 * o_.scale, next_seed(o_.seed));
    const double w1 = static_cast<double>(width - 1), h1 = static_cast<double>(height - 1);
    const std::array<Point, 4> start = {Point{0, 0}, Point{w1, 0}, Point{0, h1}, Point{w1, h1}};
    std::vector<AffineTransform> transforms;
    for (std::size_t b = 0; b < static_cast<std::size_t>(batch); ++b) {
      std::array<Point, 4> end;
      for (std::size_t k = 0; k < 4; ++k)
        for (std::size_t j = 0; j < 2; ++j) end[k][j] = start[k][j] + start[k][j] * d[b * 8 + k * 2 + j];
      transforms.push_back(homography(start, end));
    }
    const Tensor warped = affine_transform(x, transforms, o_.interpolation, "constant", o_.fill_value);
    x = where(per_image_mask(apply), warped, x);
  }
  return from_batch(x, input.rank(), o_.data_format);
}

Config RandomPerspectiveImpl::get_config() const { return layer_config(*this); }

// ---- RandomElasticTransform ----
RandomElasticTransformImpl::RandomElasticTransformImpl(Factor factor, RandomElasticTransformOptions o)
    : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  const auto [lower, upper] = base_factor_range("RandomElasticTransform", factor, 0.0, 1.0);
  factor_ = Factor(lower, upper);
  const auto [s0, s1] = base_factor_range("RandomElasticTransform", o_.scale, 0.0, 1.0, "scale");
  o_.scale = Factor(s0, s1);
  if (o_.interpolation != "nearest" && o_.interpolation != "bilinear")
    throw ValueError("Unknown `interpolation` " + o_.interpolation + ". Expected of one ('nearest', 'bilinear').");
  static const std::set<std::string> modes = {"constant", "nearest", "wrap", "mirror", "reflect"};
  if (!modes.contains(o_.fill_mode))
    throw ValueError("Unknown `fill_mode` " + o_.fill_mode +
                     ". Expected of one {'constant', 'nearest', 'wrap', 'mirror', 'reflect'}.");
  check_range_pair("RandomElasticTransform", o_.value_range);
  o_.data_format = check_data_format("RandomElasticTransform", o_.data_format);
  apply_input_shape(*this, o_);
}

// elastic_transform: one normal field (Keras draws dx and dy from the same seed, so
// they are equal), smoothed by a Gaussian of sigma over int(6·sigma) | 1 taps.
Tensor RandomElasticTransformImpl::warp(const Tensor& x) {
  const int64_t batch = x.shape()[0], height = x.shape()[1], width = x.shape()[2];
  const double s = uniform_draws(1, o_.scale.values[0], o_.scale.values[1], next_seed(o_.seed))[0];
  const double alpha = static_cast<double>(std::max(height, width)) * 0.1 * s;
  const double sigma = static_cast<double>(std::min(height, width)) * 0.05 * s;
  const int taps = static_cast<int>(6 * sigma) | 1;
  const std::vector<double> kernel = sigma > 0 ? gaussian_kernel1d(taps, sigma) : std::vector<double>{1.0};
  const Tensor noise = random::normal({batch, height, width, 1}, 0.0, 1.0, x.dtype(), next_seed(o_.seed)) * sigma;
  const auto d = cast(gaussian_blur(noise, kernel, kernel), DType::float64).to_vector<double>();
  std::vector<double> rows(d.size()), cols(d.size());
  for (std::size_t p = 0; p < d.size(); ++p) {
    const auto pixel = static_cast<int64_t>(p) % (height * width);
    rows[p] = static_cast<double>(pixel / width) + alpha * d[p];
    cols[p] = static_cast<double>(pixel % width) + alpha * d[p];
  }
  return map_coordinates(x, rows, cols, o_.interpolation, o_.fill_mode, o_.fill_value);
}

Tensor RandomElasticTransformImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);  // (B, H, W, C)
  // A zero scale or probability bound leaves the images as they are, unclipped (Keras returns early).
  if (training && o_.scale.values[1] != 0.0 && factor_.values[1] != 0.0) {
    const auto seed_p = next_seed(o_.seed), seed_u = next_seed(o_.seed);
    const auto apply = apply_draws(x.shape()[0], factor_.values[0], factor_.values[1], seed_p, seed_u);
    x = clip(where(per_image_mask(apply), warp(x), x), o_.value_range[0], o_.value_range[1]);
  }
  return from_batch(x, input.rank(), o_.data_format);
}

Config RandomElasticTransformImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(RandomPerspectiveImpl, "RandomPerspective")
KILN_REGISTER_LAYER(RandomElasticTransformImpl, "RandomElasticTransform")

}  // namespace kiln::layers
