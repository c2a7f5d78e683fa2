// Axis moves, host row orders and row gathers for the sorting family.
#include "ops/sort_util.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"

namespace kiln::ops {

namespace {

std::vector<int> axis_to_last_perm(int64_t rank, int axis) {
  std::vector<int> perm;
  for (int a = 0; a < rank; ++a)
    if (a != axis) perm.push_back(a);
  perm.push_back(axis);
  return perm;
}

template <class T>
void order_rows(const std::vector<T>& v, int64_t n, bool descending, std::vector<int64_t>& out) {
  // NaN counts as larger than every number, so it ends an ascending row and starts a descending one.
  auto lt = [](T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return false;
      if (std::isnan(b)) return true;
    }
    return a < b;
  };
  const int64_t rows = n ? static_cast<int64_t>(v.size()) / n : 0;
  std::vector<int64_t> idx(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = v.data() + r * n;
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
      return descending ? lt(row[b], row[a]) : lt(row[a], row[b]);
    });
    out.insert(out.end(), idx.begin(), idx.end());
  }
}

}  // namespace

Tensor axis_to_last(const Tensor& x, int axis) {
  if (axis == x.rank() - 1) return x;
  return transpose(x, axis_to_last_perm(x.rank(), axis));
}

Tensor last_to_axis(const Tensor& x, int axis) {
  if (axis == x.rank() - 1) return x;
  std::vector<int> perm = axis_to_last_perm(x.rank(), axis), inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int>(i);
  return transpose(x, inv);
}

Tensor slice_axis(const Tensor& x, int axis, int64_t start, int64_t stop) {
  std::vector<Index> idx(static_cast<size_t>(x.rank()), Index(Slice()));
  idx[static_cast<size_t>(axis)] = Index(Slice(start, stop));
  return slice(x, idx);
}

std::vector<int64_t> sorted_row_order(const Tensor& x, bool descending) {
  const int64_t n = x.rank() ? x.shape().dims().back() : 1;
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(x.size()));
  if (is_floating(x.dtype())) {
    order_rows(cast(x, DType::float64).to_vector<double>(), n, descending, out);
  } else {
    order_rows(cast(x, DType::int64).to_vector<int64_t>(), n, descending, out);
  }
  return out;
}

int64_t row_count(const Tensor& x) {
  const int64_t n = x.rank() ? x.shape().dims().back() : 1;
  return n ? x.size() / n : 0;
}

Tensor take_rows(const Tensor& x, const std::vector<int64_t>& pos, int64_t m) {
  const int64_t n = x.rank() ? x.shape().dims().back() : 1;
  std::vector<int64_t> flat(pos.size());
  for (size_t i = 0; i < pos.size(); ++i) flat[i] = static_cast<int64_t>(i) / std::max<int64_t>(m, 1) * n + pos[i];
  Shape out = x.shape();
  out.dims().back() = m;
  Tensor picked = gather(reshape(x, Shape{x.size()}), Tensor(flat, Shape{static_cast<int64_t>(flat.size())}).to(x.device()), 0);
  return reshape(picked, out);
}

Tensor int32_tensor_of(const std::vector<int64_t>& v, const Shape& shape) {
  std::vector<int32_t> w(v.begin(), v.end());
  return Tensor(w, shape);
}

}  // namespace kiln::ops
