// Triangles, diagonals and special matrices (kiln/ops/matrix_ops.h): masks and
// index maps are computed on the host; where and gather carry the gradients.
#include <algorithm>
#include <string>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/matrix_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "kiln/ops/shape_ops.h"
#include "ops/compose_util.h"
#include "ops/op_util.h"

namespace kiln {

namespace {

/// An n x m int32 matrix of ones where `lower` ? j - i <= k : j - i >= k.
Tensor band_matrix(int64_t n, int64_t m, int64_t k, bool lower) {
  std::vector<int32_t> v(static_cast<std::size_t>(std::max<int64_t>(n * m, 0)));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) v[static_cast<std::size_t>(i * m + j)] = lower ? j - i <= k : j - i >= k;
  return Tensor(v, Shape({n, m}));
}

Tensor triangle(const char* op, const Tensor& x, int64_t k, bool lower) {
  if (x.rank() < 2)
    throw ValueError(std::string(op) + ": expected a tensor with at least 2 axes, but received " + ops::describe(x));
  const Tensor mask = cast(band_matrix(x.shape()[-2], x.shape()[-1], k, lower), DType::bool_).to(x.device());
  return where(mask, x, zeros_like(x));
}

void check_matrix_size(const char* op, int64_t n, int64_t m) {
  if (n < 0 || m < 0)
    throw ValueError(std::string(op) + ": negative dimensions are not allowed, but received N=" + std::to_string(n) +
                     ", M=" + std::to_string(m));
}

}  // namespace

Tensor tril(const Tensor& x, int64_t k) { return triangle("tril", x, k, true); }

Tensor triu(const Tensor& x, int64_t k) { return triangle("triu", x, k, false); }

Tensor tri(int64_t N, std::optional<int64_t> M, int64_t k, DType dtype) {
  check_matrix_size("tri", N, M.value_or(N));
  return cast(band_matrix(N, M.value_or(N), k, true), dtype).to(default_device());
}

Tensor eye(int64_t N, std::optional<int64_t> M, int64_t k, DType dtype) {
  const int64_t m = M.value_or(N);
  check_matrix_size("eye", N, m);
  std::vector<int32_t> v(static_cast<std::size_t>(N * m));
  for (int64_t i = 0; i < N; ++i)
    if (i + k >= 0 && i + k < m) v[static_cast<std::size_t>(i * m + i + k)] = 1;
  return cast(Tensor(v, Shape({N, m})), dtype).to(default_device());
}

Tensor identity(int64_t n, DType dtype) { return eye(n, n, 0, dtype); }

Tensor diag(const Tensor& x, int64_t k) {
  if (x.rank() == 2) return diagonal(x, k, 0, 1);
  if (x.rank() != 1)
    throw ValueError("diag: expected a 1-D or 2-D tensor, but received " + ops::describe(x));
  const int64_t len = x.shape()[0], n = len + (k < 0 ? -k : k);
  std::vector<int64_t> at(static_cast<std::size_t>(n * n), -1);
  for (int64_t i = 0; i < len; ++i) {
    const int64_t row = k >= 0 ? i : i - k, col = k >= 0 ? i + k : i;
    at[static_cast<std::size_t>(row * n + col)] = i;
  }
  return ops::gather_flat(x, at, Shape({n, n}));
}

Tensor diagflat(const Tensor& x, int64_t k) { return diag(ravel(x), k); }

Tensor diagonal(const Tensor& x, int64_t offset, int axis1, int axis2) {
  if (x.rank() < 2)
    throw ValueError("diagonal: expected a tensor with at least 2 axes, but received " + ops::describe(x));
  const int a1 = ops::normalize_axis("diagonal", axis1, x.rank()), a2 = ops::normalize_axis("diagonal", axis2, x.rank());
  if (a1 == a2)
    throw ValueError("diagonal: axis1 and axis2 cannot be the same, but both are " + std::to_string(a1));
  const Tensor m = moveaxis(x, {a1, a2}, {-2, -1});
  const int64_t n1 = m.shape()[-2], n2 = m.shape()[-1];
  const int64_t r0 = std::max<int64_t>(0, -offset), c0 = std::max<int64_t>(0, offset);
  const int64_t len = std::max<int64_t>(0, std::min(n1 - r0, n2 - c0));
  std::vector<int64_t> dims(m.shape().dims().begin(), m.shape().dims().end() - 2);
  const int64_t batch = Shape(dims).num_elements();
  std::vector<int64_t> at;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < len; ++i) at.push_back(b * n1 * n2 + (i + r0) * n2 + i + c0);
  dims.push_back(len);
  return ops::gather_flat(m, at, Shape(dims));
}

Tensor trace(const Tensor& x, int64_t offset, int axis1, int axis2) {
  Tensor d = diagonal(x, offset, axis1, axis2);
  if (d.dtype() == DType::bool_ || d.dtype() == DType::uint8) d = cast(d, DType::int32);
  return sum(d, -1);
}

Tensor vander(const Tensor& x, std::optional<int64_t> N, bool increasing) {
  if (x.rank() != 1) throw ValueError("vander: x must be a one-dimensional array, but received " + ops::describe(x));
  const int64_t n = N.value_or(x.shape()[0]);
  if (n < 0) throw ValueError("vander: N must be nonnegative, but received " + std::to_string(n));
  if (n == 0) return zeros(Shape({x.shape()[0], 0}), x.dtype()).to(x.device());
  std::vector<Tensor> cols{ones_like(x)};
  for (int64_t j = 1; j < n; ++j) cols.push_back(cols.back() * x);
  Tensor v = stack(cols, 1);
  return increasing ? v : flip(v, std::vector<int>{1});
}

}  // namespace kiln
