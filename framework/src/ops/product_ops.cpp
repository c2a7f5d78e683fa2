// NumPy's products (kiln/ops/matrix_ops.h): everything reduces to a
// tensordot, itself a transpose, a reshape and a matmul (floating dtypes) or a
// broadcast multiply and sum (integers, which BLAS does not take).
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

/// (F, K) x (K, G) -> (F, G) in the operands' (shared) dtype.
Tensor contract_2d(const Tensor& a, const Tensor& b) {
  if (is_floating(a.dtype())) return matmul(a, b);
  if (a.dtype() == DType::bool_) return cast(contract_2d(cast(a, DType::int32), cast(b, DType::int32)), DType::bool_);
  const int64_t f = a.shape()[0], k = a.shape()[1], g = b.shape()[1];
  return sum(reshape(a, Shape({f, k, 1})) * reshape(b, Shape({1, k, g})), 1);
}

Tensor elementwise_product(const Tensor& a, const Tensor& b) {
  return a.dtype() == DType::bool_ ? logical_and(a, b) : multiply(a, b);
}

}  // namespace

Tensor tensordot(const Tensor& x1, const Tensor& x2, const std::vector<int>& axes1, const std::vector<int>& axes2) {
  if (axes1.size() != axes2.size())
    throw ValueError("tensordot: the axes lists must have the same length, but received " +
                     std::to_string(axes1.size()) + " and " + std::to_string(axes2.size()));
  auto [a, b] = ops::keras_promote_pair(x1, x2);
  std::vector<int> sa, sb, fa, fb;
  int64_t k = 1;
  for (std::size_t i = 0; i < axes1.size(); ++i) {
    sa.push_back(ops::normalize_axis("tensordot", axes1[i], a.rank()));
    sb.push_back(ops::normalize_axis("tensordot", axes2[i], b.rank()));
    if (a.shape()[sa.back()] != b.shape()[sb.back()])
      throw ShapeError("tensordot: shape mismatch between axis " + std::to_string(axes1[i]) + " of " +
                       ops::describe(x1) + " and axis " + std::to_string(axes2[i]) + " of " + ops::describe(x2));
    k *= a.shape()[sa.back()];
  }
  std::vector<int64_t> out_dims;
  int64_t f = 1, g = 1;
  for (int i = 0; i < a.rank(); ++i)
    if (std::find(sa.begin(), sa.end(), i) == sa.end()) fa.push_back(i), out_dims.push_back(a.shape()[i]), f *= a.shape()[i];
  for (int i = 0; i < b.rank(); ++i)
    if (std::find(sb.begin(), sb.end(), i) == sb.end()) fb.push_back(i), out_dims.push_back(b.shape()[i]), g *= b.shape()[i];
  std::vector<int> pa = fa, pb = sb;
  pa.insert(pa.end(), sa.begin(), sa.end());
  pb.insert(pb.end(), fb.begin(), fb.end());
  Tensor at = reshape(transpose(a, pa.empty() ? std::vector<int>{} : pa), Shape({f, k}));
  Tensor bt = reshape(transpose(b, pb.empty() ? std::vector<int>{} : pb), Shape({k, g}));
  return reshape(contract_2d(at, bt), Shape(out_dims));
}

Tensor tensordot(const Tensor& x1, const Tensor& x2, int axes) {
  if (axes < 0 || axes > x1.rank() || axes > x2.rank())
    throw ValueError("tensordot: axes=" + std::to_string(axes) + " is out of range for " + ops::describe(x1) +
                     " and " + ops::describe(x2));
  std::vector<int> a1, a2;
  for (int i = 0; i < axes; ++i) a1.push_back(static_cast<int>(x1.rank()) - axes + i), a2.push_back(i);
  return tensordot(x1, x2, a1, a2);
}

Tensor outer(const Tensor& x1, const Tensor& x2) {
  auto [a, b] = ops::keras_promote_pair(x1, x2);
  return elementwise_product(reshape(a, Shape({a.size(), 1})), reshape(b, Shape({1, b.size()})));
}

Tensor inner(const Tensor& x1, const Tensor& x2) {
  if (x1.rank() == 0 || x2.rank() == 0) {
    auto [a, b] = ops::keras_promote_pair(x1, x2);
    return elementwise_product(a, b);
  }
  return tensordot(x1, x2, {-1}, {-1});
}

Tensor vdot(const Tensor& x1, const Tensor& x2) {
  if (x1.size() != x2.size())
    throw ShapeError("vdot: the inputs must have the same number of entries, but received " + ops::describe(x1) +
                     " and " + ops::describe(x2));
  return tensordot(ravel(x1), ravel(x2), {0}, {0});
}

Tensor dot(const Tensor& x1, const Tensor& x2) {
  if (x1.rank() == 0 || x2.rank() == 0) return inner(x1, x2);
  return tensordot(x1, x2, {-1}, {x2.rank() == 1 ? 0 : -2});
}

Tensor kron(const Tensor& x1, const Tensor& x2) {
  auto [a0, b0] = ops::keras_promote_pair(x1, x2);
  const int64_t r = std::max(a0.rank(), b0.rank());
  const Tensor a = ops::prepend_axes(a0, r), b = ops::prepend_axes(b0, r);
  std::vector<int64_t> da, db, out;
  for (int64_t i = 0; i < r; ++i) {
    da.insert(da.end(), {a.shape()[i], 1});
    db.insert(db.end(), {1, b.shape()[i]});
    out.push_back(a.shape()[i] * b.shape()[i]);
  }
  return reshape(elementwise_product(reshape(a, Shape(da)), reshape(b, Shape(db))), Shape(out));
}

namespace {

Tensor cross_vectors(const char* which, const Tensor& x, int axis, const Tensor& original) {
  Tensor v = moveaxis(x, {axis}, {-1});
  const int64_t n = v.shape()[-1];
  if (n != 2 && n != 3)
    throw ValueError(std::string("cross: Dimension must be either 2 or 3 for cross product, but axis ") +
                     std::to_string(axis) + " of " + which + " (" + ops::describe(original) + ") has size " +
                     std::to_string(n));
  return v;
}

Tensor component(const Tensor& v, int64_t i) {
  return i < v.shape()[-1] ? slice(v, {ellipsis, Index(i)}) : zeros_like(slice(v, {ellipsis, Index(0)}));
}

}  // namespace

Tensor cross(const Tensor& x1, const Tensor& x2, int axisa, int axisb, int axisc, std::optional<int> axis) {
  if (axis) axisa = axisb = axisc = *axis;
  auto [p, q] = ops::keras_promote_pair(x1, x2);
  const Tensor a = cross_vectors("x1", p, axisa, x1), b = cross_vectors("x2", q, axisb, x2);
  const Tensor z = component(a, 0) * component(b, 1) - component(a, 1) * component(b, 0);
  if (a.shape()[-1] == 2 && b.shape()[-1] == 2) return z;
  const Tensor x = component(a, 1) * component(b, 2) - component(a, 2) * component(b, 1);
  const Tensor y = component(a, 2) * component(b, 0) - component(a, 0) * component(b, 2);
  const Tensor c = stack({x, y, z}, -1);
  return moveaxis(c, {-1}, {axisc});
}

}  // namespace kiln
