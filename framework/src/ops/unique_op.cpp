// keras.ops.unique as Keras's JAX backend computes it (jnp.unique): sorted
// values, first occurrences, the inverse map and counts, over the flattened
// tensor or over slices along an axis; NaNs are never equal, and sort last.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

namespace {

/// The slices' grouping: `order` sorts the slices (stably), `group` gives each slice's group.
struct Grouping {
  std::vector<int64_t> first;  // each group's first occurrence
  std::vector<int32_t> group;  // per slice
  std::vector<int32_t> counts;  // per group
};

template <class T>
Grouping group_rows(const std::vector<T>& data, int64_t n, int64_t width) {
  auto row = [&](int64_t i) { return data.begin() + i * width; };
  // NaNs order after every number and among themselves by position (the stable sort).
  auto less = [](T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return false;
      if (std::isnan(b)) return true;
    }
    return a < b;
  };
  auto same = [](T a, T b) { return a == b; };  // false for NaN, as jnp.unique's equal_nan=False
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return std::lexicographical_compare(row(a), row(a) + width, row(b), row(b) + width, less);
  });
  Grouping g;
  g.group.resize(static_cast<size_t>(n));
  for (size_t k = 0; k < order.size(); ++k) {
    bool fresh = k == 0 || !std::equal(row(order[k]), row(order[k]) + width, row(order[k - 1]), same);
    if (fresh) {
      g.first.push_back(order[k]);
      g.counts.push_back(0);
    }
    g.group[order[k]] = static_cast<int32_t>(g.first.size() - 1);
    ++g.counts.back();
  }
  return g;
}

Grouping group_slices(const Tensor& rows) {
  const int64_t n = rows.shape().dims()[0], width = n ? rows.size() / n : 0;
  if (rows.dtype() == DType::int64) return group_rows(rows.to_vector<int64_t>(), n, width);
  return group_rows(cast(rows, DType::float64).to_vector<double>(), n, width);
}

template <class T>
Tensor int32_tensor(const std::vector<T>& v) {
  std::vector<int32_t> w(v.begin(), v.end());
  return Tensor(w, Shape{static_cast<int64_t>(w.size())});
}

/// jnp.unique's `size`: cut, or pad the values with fill_value (the smallest unique value by
/// default), the first occurrences with the smallest value's, and the counts with zeros.
void fit_to_size(UniqueResult& r, const Grouping& g, int64_t size, const std::optional<double>& fill, int axis) {
  const int64_t have = static_cast<int64_t>(g.first.size());
  if (size < 0) throw ValueError("unique: size must be >= 0, got " + std::to_string(size));
  if (size <= have) {
    Tensor keep = range(0.0, static_cast<double>(size), 1.0, DType::int64);
    r.values = gather(r.values, keep, axis);
    r.indices = gather(r.indices, keep, 0);
    r.counts = gather(r.counts, keep, 0);
    return;
  }
  std::vector<int64_t> pick(static_cast<size_t>(size), 0);
  std::iota(pick.begin(), pick.begin() + have, 0);
  Tensor picked = Tensor(pick, Shape{size});
  r.values = gather(r.values, picked, axis);
  if (fill) {
    std::vector<int32_t> is_pad(static_cast<size_t>(size), 0);
    std::fill(is_pad.begin() + have, is_pad.end(), 1);
    Shape mask_shape(std::vector<int64_t>(static_cast<size_t>(r.values.rank()), 1));
    mask_shape.dims()[axis] = size;
    Tensor pad = cast(Tensor(is_pad, Shape{size}).reshape(mask_shape), DType::bool_);
    r.values = where(pad, scalar_like(*fill, r.values), r.values);
  }
  r.indices = gather(r.indices, picked, 0);
  std::vector<int32_t> counts(g.counts.begin(), g.counts.end());
  counts.resize(static_cast<size_t>(size), 0);
  r.counts = int32_tensor(counts);
}

}  // namespace

UniqueResult unique(const Tensor& x, const UniqueOptions& o) {
  check_concrete("unique", x);
  UniqueResult r;
  int axis = 0;
  Tensor rows;
  if (o.axis) {
    axis = normalize_axis("unique", *o.axis, x.rank());
    std::vector<int> perm{axis};
    for (int a = 0; a < x.rank(); ++a)
      if (a != axis) perm.push_back(a);
    Tensor moved = transpose(x, perm);
    rows = reshape(moved, Shape{x.shape().dims()[axis], -1});
  } else {
    rows = reshape(x, Shape{x.size(), 1});
  }
  Grouping g = group_slices(rows);
  Tensor first = Tensor(g.first, Shape{static_cast<int64_t>(g.first.size())}).to(x.device());
  r.values = o.axis ? gather(x, first, axis) : gather(reshape(x, Shape{x.size()}), first, 0);
  r.indices = int32_tensor(g.first);
  r.inverse = int32_tensor(g.group);
  if (!o.axis) r.inverse = reshape(r.inverse, x.shape());
  r.counts = int32_tensor(g.counts);
  if (o.size) fit_to_size(r, g, *o.size, o.fill_value, o.axis ? axis : 0);
  return r;
}

Tensor unique(const Tensor& x) { return unique(x, UniqueOptions{}).values; }

}  // namespace kiln
