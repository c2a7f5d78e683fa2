// ContrastLimitedAdaptiveHistogramEqualization as Keras 3.15 computes it (clahe.py on
// the JAX backend), from ops that trace and export: no value is read back to the host,
// and every constant depends on the image size only, not on the batch.
#include "kiln/layers/clahe.h"

#include <cmath>
#include <cstdint>

#include "color_utils.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

using ClaheImpl = ContrastLimitedAdaptiveHistogramEqualizationImpl;

ClaheImpl::ContrastLimitedAdaptiveHistogramEqualizationImpl(ContrastLimitedAdaptiveHistogramEqualizationOptions o)
    : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  const std::string cls = "ContrastLimitedAdaptiveHistogramEqualization";
  // Keras uses value_range as given (unsorted), like _transform_value_range.
  check_color_value_range(cls, o_.value_range, /*sort=*/false);
  if (o_.tile_grid_size.size() != 2 || o_.tile_grid_size[0] < 1 || o_.tile_grid_size[1] < 1)
    throw ValueError(cls + ": the `tile_grid_size` argument should be a tuple of 2 positive integers (height, width). "
                     "Received: tile_grid_size=" + Config(o_.tile_grid_size).dump());
  o_.data_format = check_data_format(cls, o_.data_format);
  apply_input_shape(*this, o_);
}

namespace {

Tensor int_tensor(const std::vector<int32_t>& v) { return Tensor(v, Shape{static_cast<int64_t>(v.size())}); }

// numpy.pad's "symmetric" mode after the end, as gather indices: 0..n-1, then mirrored
// with the edge repeated (period 2n, for pads longer than the axis too).
Tensor symmetric_index(int64_t n, int64_t padded) {
  std::vector<int32_t> idx;
  for (int64_t i = 0; i < padded; ++i) {
    const int64_t m = i % (2 * n);
    idx.push_back(static_cast<int32_t>(m < n ? m : 2 * n - 1 - m));
  }
  return int_tensor(idx);
}

// The tile mappings with the first and last tile repeated on each side: 0, 0, 1, ..., g-1, g-1.
Tensor edge_padded_index(int64_t g) {
  std::vector<int32_t> idx{0};
  for (int64_t i = 0; i < g; ++i) idx.push_back(static_cast<int32_t>(i));
  idx.push_back(static_cast<int32_t>(g - 1));
  return int_tensor(idx);
}

// Keras's interpolation grid along one axis of `padded` pixels in tiles of `tile`:
// g = (i - tile / 2) / tile + 1 in float32, the lower (g0) and upper (g0 + 1) padded tile
// indices and the weight g - g0 of the upper one.
struct AxisGrid {
  std::vector<int64_t> lower, upper;
  std::vector<float> weight;
};

AxisGrid axis_grid(int64_t padded, int64_t tile, int64_t grid) {
  AxisGrid a;
  const float half = static_cast<float>(static_cast<double>(tile) / 2.0), t = static_cast<float>(tile);
  const auto clamp = [&](float v) { return static_cast<int64_t>(v < 0.f ? 0.f : (v > grid + 1.f ? grid + 1.f : v)); };
  for (int64_t i = 0; i < padded; ++i) {
    const float g = (static_cast<float>(i) - half) / t + 1.0f, g0 = std::floor(g);
    a.lower.push_back(clamp(g0));
    a.upper.push_back(clamp(g0 + 1.0f));
    a.weight.push_back(g - g0);
  }
  return a;
}

// cumsum along the last axis (256 bins) as a product with the upper-triangular ones.
Tensor cumulative_sum(const Tensor& hists) {
  std::vector<float> u(256 * 256, 0.f);
  for (int i = 0; i < 256; ++i)
    for (int j = i; j < 256; ++j) u[static_cast<std::size_t>(i * 256 + j)] = 1.f;
  const Tensor flat = reshape(hists, {-1, 256});
  return reshape(matmul(flat, Tensor(u, Shape{256, 256})), hists.shape());
}

// hists (..., 256) -> the tiles' mappings 255 (cdf - cdf_min) / (n - cdf_min) in [0, 255],
// after the clip and redistribution.
Tensor tile_mappings(Tensor hists, double clip_limit, int64_t tile_pixels) {
  if (clip_limit > 0) {
    const double limit = static_cast<float>(clip_limit * static_cast<double>(tile_pixels) / 256.0);
    const Tensor clipped = clip(hists, 0.0, limit);
    const Tensor excess = sum(hists - clipped, {-1}, /*keepdims=*/true);
    hists = clipped + excess / 256.0;
  }
  const Tensor cdf = cumulative_sum(hists);
  const Tensor cdf_min = min(cdf, {-1}, /*keepdims=*/true);
  const Tensor numerator = (cdf - cdf_min) * 255.0;
  Tensor denominator = scalar_like(static_cast<double>(tile_pixels), cdf_min) - cdf_min;
  denominator = where(equal(denominator, scalar_like(0.0, denominator)), scalar_like(1.0, denominator), denominator);
  return clip(numerator / denominator, 0.0, 255.0);
}

// Each pixel's value in the mapping of one of its four surrounding tiles: `values` (B, C,
// P, T) holds every pixel's value in every padded tile; tile[p] picks one per pixel.
Tensor pick_tile(const Tensor& values, const std::vector<int64_t>& tile) {
  const Shape s = values.shape();
  const int64_t tiles = s[3];
  std::vector<int32_t> idx;
  for (std::size_t p = 0; p < tile.size(); ++p) idx.push_back(static_cast<int32_t>(static_cast<int64_t>(p) * tiles + tile[p]));
  return gather(reshape(values, {s[0], s[1], s[2] * tiles}), int_tensor(idx), 2);
}

/// clahe.py's _clahe on (B, H, W, C) float32 values in (0, 255).
Tensor clahe(const Tensor& images, int64_t grid_h, int64_t grid_w, double clip_limit) {
  const Shape s = images.shape();
  const int64_t batch = s[0], height = s[1], width = s[2], channels = s[3];
  const int64_t tile_h = (height + grid_h - 1) / grid_h, tile_w = (width + grid_w - 1) / grid_w;
  const int64_t padded_h = tile_h * grid_h, padded_w = tile_w * grid_w;
  Tensor padded = images;
  if (padded_h != height) padded = gather(padded, symmetric_index(height, padded_h), 1);
  if (padded_w != width) padded = gather(padded, symmetric_index(width, padded_w), 2);
  // The bin of each pixel: its integer part in [0, 255]; (B, C, Hp, Wp, 256). Keras casts
  // to int32; int64 holds the same values, and ONNX Runtime's OneHot takes int64 indices.
  const Tensor bins = one_hot(cast(clip(transpose(padded, {0, 3, 1, 2}), 0.0, 255.0), DType::int64), 256);
  Tensor hists = sum(reshape(bins, {batch, channels, grid_h, tile_h, grid_w, tile_w, 256}), {3, 5});
  Tensor maps = tile_mappings(hists, clip_limit, tile_h * tile_w);  // (B, C, gh, gw, 256)
  maps = gather(gather(maps, edge_padded_index(grid_h), 2), edge_padded_index(grid_w), 3);
  const int64_t tiles_w = grid_w + 2, tiles = (grid_h + 2) * tiles_w;
  maps = reshape(maps, {batch, channels, tiles, 256});
  // Every pixel's value in every tile's mapping: one term of each sum is non-zero, so exact.
  const Tensor values = matmul(reshape(bins, {batch, channels, padded_h * padded_w, 256}), maps, false, true);
  const AxisGrid gy = axis_grid(padded_h, tile_h, grid_h), gx = axis_grid(padded_w, tile_w, grid_w);
  std::vector<int64_t> nw, ne, sw, se;
  std::vector<float> wy, wx;
  for (int64_t y = 0; y < padded_h; ++y)
    for (int64_t x = 0; x < padded_w; ++x) {
      const auto i = static_cast<std::size_t>(y), j = static_cast<std::size_t>(x);
      nw.push_back(gy.lower[i] * tiles_w + gx.lower[j]);
      ne.push_back(gy.lower[i] * tiles_w + gx.upper[j]);
      sw.push_back(gy.upper[i] * tiles_w + gx.lower[j]);
      se.push_back(gy.upper[i] * tiles_w + gx.upper[j]);
      wy.push_back(gy.weight[i]);
      wx.push_back(gx.weight[j]);
    }
  const Shape flat{padded_h * padded_w};
  const Tensor wx_t(wx, flat), wy_t(wy, flat);
  const Tensor one = scalar_like(1.0, wx_t);
  const Tensor top = pick_tile(values, nw) * (one - wx_t) + pick_tile(values, ne) * wx_t;
  const Tensor bottom = pick_tile(values, sw) * (one - wx_t) + pick_tile(values, se) * wx_t;
  Tensor result = reshape(top * (one - wy_t) + bottom * wy_t, {batch, channels, padded_h, padded_w});
  result = slice(result, {Slice(), Slice(), Slice(0, height), Slice(0, width)});
  return transpose(result, {0, 2, 3, 1});
}

}  // namespace

Tensor ClaheImpl::call(const Tensor& input, bool /*training*/) {
  const Tensor x = to_batch(input, o_.data_format);
  const double lo = o_.value_range[0], hi = o_.value_range[1];
  Tensor y = transform_value_range(cast(x, DType::float32), lo, hi, 0, 255);
  y = clahe(y, o_.tile_grid_size[0], o_.tile_grid_size[1], o_.clip_limit);
  y = cast(transform_value_range(y, 0, 255, lo, hi), x.dtype());
  return from_batch(y, input.rank(), o_.data_format);
}

Config ClaheImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(ContrastLimitedAdaptiveHistogramEqualizationImpl, "ContrastLimitedAdaptiveHistogramEqualization")

}  // namespace kiln::layers
