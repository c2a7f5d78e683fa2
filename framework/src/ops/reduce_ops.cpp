// Reductions. The backend reduces into the keepdims layout; the op then drops
// the reduced axes unless keepdims is asked for.
#include "kiln/ops/reduce_ops.h"

#include <cmath>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/cumulative_ops.h"
#include "kiln/ops/math_ops.h"
#include "ops/op_util.h"
#include "core/tensor_impl.h"
#include "core/op_log.h"
#include "ops/half_compute.h"

namespace kiln {

using backend::ReduceOp;
using namespace ops;

namespace {

Shape dropped_shape(const Shape& x, const std::vector<int>& axes) {
  Shape s;
  for (int64_t i = 0; i < x.rank(); ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) s.push_back(x.dims()[i]);
  return s;
}

Tensor reduce_forward(ReduceOp op, const Tensor& x, const std::vector<int>& axes, bool keepdims, const char* name) {
  check_concrete(name, x);
  if (x.dtype() == DType::bool_)
    throw TypeError(std::string(name) + ": expected a numeric tensor, but received bool; cast it first");
  if ((op == ReduceOp::max || op == ReduceOp::min) && x.size() == 0)
    throw ValueError(std::string(name) + ": cannot reduce an empty tensor of shape " + x.shape().to_string());
  Shape ks = keepdims_shape(x.shape(), axes);
  Tensor y = Tensor::empty(ks, x.dtype(), x.device());
  be(x).reduce(op, x, y);
  return keepdims ? y : alias_with_shape(y, dropped_shape(x.shape(), axes));
}

/// Brings dy (reduced shape) back to x's shape.
Tensor expand_back(const Tensor& dy, const Shape& xs, const std::vector<int>& axes) {
  return broadcast_to(reshape(dy, keepdims_shape(xs, axes)), xs);
}

}  // namespace

Tensor sum(const Tensor& x, Axes a, bool keepdims) {
  KILN_LOG_OP(sum, x, a, keepdims);
  KILN_HALF_IN_FLOAT32(sum, x, a, keepdims);
  auto axes = resolve_axes("sum", a.axes, x.rank());
  Tensor y = reduce_forward(ReduceOp::sum, x, axes, keepdims, "sum");
  if (autodiff::active()) {
    Shape xs = x.shape();
    autodiff::record("Sum", {x}, {y}, [xs, axes](const Grads& dy, const Needs&) { return Grads{expand_back(dy[0], xs, axes)}; });
  }
  return y;
}

Tensor mean(const Tensor& x, Axes a, bool keepdims) {
  KILN_LOG_OP(mean, x, a, keepdims);
  KILN_HALF_IN_FLOAT32(mean, x, a, keepdims);
  auto axes = resolve_axes("mean", a.axes, x.rank());
  int64_t n = 1;
  for (int ax : axes) n *= x.shape()[ax];
  // Like keras.ops.mean: integer (and bool) inputs give float32, and the mean
  // of no elements is nan (0 / 0), as in NumPy and TF.
  Tensor xf = is_floating(x.dtype()) ? x : cast(x, DType::float32);
  Tensor s = sum(xf, axes, keepdims);
  return divide(s, scalar_like(static_cast<double>(n), s));
}

namespace {
Tensor minmax(ReduceOp op, const Tensor& x, Axes a, bool keepdims, const char* name) {
  auto axes = resolve_axes(name, a.axes, x.rank());
  Tensor y = reduce_forward(op, x, axes, keepdims, name);
  if (autodiff::active()) {
    Shape xs = x.shape();
    autodiff::record(op == ReduceOp::max ? "Max" : "Min", {x}, {y}, [x, y, xs, axes](const Grads& dy, const Needs&) {
      // The gradient is shared equally between tied extremes, as TF does.
      Tensor yb = expand_back(y, xs, axes);
      Tensor mask = cast(equal(x, yb), x.dtype());
      Tensor count = sum(mask, axes, true);
      return Grads{divide(multiply(mask, expand_back(dy[0], xs, axes)), count)};
    });
  }
  return y;
}
}  // namespace

Tensor max(const Tensor& x, Axes a, bool keepdims) {
  KILN_LOG_OP(max, x, a, keepdims);
  KILN_HALF_IN_FLOAT32(max, x, a, keepdims);
  return minmax(ReduceOp::max, x, a, keepdims, "max");
}
Tensor min(const Tensor& x, Axes a, bool keepdims) {
  KILN_LOG_OP(min, x, a, keepdims);
  KILN_HALF_IN_FLOAT32(min, x, a, keepdims);
  return minmax(ReduceOp::min, x, a, keepdims, "min");
}

namespace {
/// d prod / dx_i: the product of every other entry of x's slice over `axes`, as the
/// exclusive products from the left times those from the right, so zeros are exact.
Tensor prod_of_others(const Tensor& x, const std::vector<int>& axes) {
  std::vector<int> perm;
  Shape rows;
  for (int i = 0; i < x.rank(); ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) {
      perm.push_back(i);
      rows.push_back(x.shape()[i]);
    }
  perm.insert(perm.end(), axes.begin(), axes.end());
  Shape moved_shape = rows;
  for (int a : axes) moved_shape.push_back(x.shape()[a]);
  rows.push_back(-1);
  if (x.size() == 0) return zeros_like(x);
  Tensor flat = reshape(transpose(x, perm), rows);
  const int last = static_cast<int>(flat.rank()) - 1;
  const int64_t n = flat.shape().dims().back();
  Shape one_shape = flat.shape();
  one_shape.dims().back() = 1;
  Tensor one = ones(one_shape, x.dtype()).to(x.device());
  std::vector<Index> head(static_cast<size_t>(flat.rank()), Index(Slice())), tail = head, rev = head;
  head.back() = Index(Slice(0, n - 1));
  tail.back() = Index(Slice(1, std::nullopt));
  rev.back() = Index(Slice(std::nullopt, std::nullopt, -1));
  Tensor left = cumprod(concat({one, slice(flat, head)}, last), last);
  Tensor right = slice(cumprod(slice(concat({slice(flat, tail), one}, last), rev), last), rev);
  std::vector<int> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int>(i);
  return transpose(reshape(multiply(left, right), moved_shape), inv);
}
}  // namespace

Tensor prod(const Tensor& x, Axes a, bool keepdims) {
  KILN_LOG_OP(prod, x, a, keepdims);
  KILN_HALF_IN_FLOAT32(prod, x, a, keepdims);
  auto axes = resolve_axes("prod", a.axes, x.rank());
  Tensor y = reduce_forward(ReduceOp::prod, x, axes, keepdims, "prod");
  if (autodiff::active()) {
    Shape xs = x.shape();
    autodiff::record("Prod", {x}, {y}, [x, xs, axes](const Grads& dy, const Needs&) {
      return Grads{multiply(expand_back(dy[0], xs, axes), prod_of_others(x, axes))};
    });
  }
  return y;
}

Tensor var(const Tensor& x, Axes a, bool keepdims) {
  KILN_LOG_OP(var, x, a, keepdims);
  KILN_HALF_IN_FLOAT32(var, x, a, keepdims);
  Tensor m = mean(x, a, true);
  return mean(square(subtract(x, m)), a, keepdims);
}
Tensor std(const Tensor& x, Axes a, bool keepdims) {
  KILN_LOG_OP(std, x, a, keepdims);
  KILN_HALF_IN_FLOAT32(std, x, a, keepdims);
  return sqrt(var(x, a, keepdims));
}

Tensor logsumexp(const Tensor& x, Axes a, bool keepdims) {
  KILN_LOG_OP(logsumexp, x, a, keepdims);
  KILN_HALF_IN_FLOAT32(logsumexp, x, a, keepdims);
  Tensor m = stop_gradient(max(x, a, true));
  Tensor finite_m = where(isfinite(m), m, zeros_like(m));
  Tensor r = add(log(sum(exp(subtract(x, finite_m)), a, true)), finite_m);
  if (keepdims) return r;
  auto axes = resolve_axes("logsumexp", a.axes, x.rank());
  return reshape(r, dropped_shape(x.shape(), axes));
}

namespace {
Tensor arg(bool is_max, const Tensor& x, int axis, const char* name) {
  check_concrete(name, x);
  if (x.rank() == 0) throw ValueError(std::string(name) + ": expected a tensor of rank >= 1, but received a scalar");
  int a = normalize_axis(name, axis, x.rank());
  if (x.shape()[a] == 0) throw ValueError(std::string(name) + ": cannot take it over an empty axis of shape " + x.shape().to_string());
  Shape os = x.shape();
  os.dims().erase(os.dims().begin() + a);
  Tensor y = Tensor::empty(os, DType::int64, x.device());
  be(x).arg_reduce(is_max, x, a, y);
  return y;
}
}  // namespace

Tensor argmax(const Tensor& x, int axis) {
  KILN_LOG_OP(argmax, x, axis);
  KILN_HALF_IN_FLOAT32(argmax, x, axis);
  return arg(true, x, axis, "argmax");
}
Tensor argmin(const Tensor& x, int axis) {
  KILN_LOG_OP(argmin, x, axis);
  KILN_HALF_IN_FLOAT32(argmin, x, axis);
  return arg(false, x, axis, "argmin");
}

namespace {
Tensor reduce_truthy(const Tensor& x) {
  check_concrete("any", x);
  return x.dtype() == DType::bool_ ? x : not_equal(x, scalar_like(0.0, x));
}
Tensor bool_extreme(const Tensor& x, Axes a, bool keepdims, bool is_max) {
  // bool has no max/min kernel: any for max, all for min, as NumPy does for bool.
  return is_max ? any(x, a, keepdims) : all(x, a, keepdims);
}
}  // namespace

Tensor any(const Tensor& x, Axes a, bool keepdims) {
  Tensor count = sum(cast(reduce_truthy(x), DType::int32), a, keepdims);
  return greater(count, scalar_like(0.0, count));
}
Tensor all(const Tensor& x, Axes a, bool keepdims) {
  return logical_not(any(logical_not(reduce_truthy(x)), a, keepdims));
}
Tensor amax(const Tensor& x, Axes a, bool keepdims) {
  KILN_HALF_IN_FLOAT32(amax, x, a, keepdims);
  check_concrete("amax", x);
  return x.dtype() == DType::bool_ ? bool_extreme(x, a, keepdims, true) : minmax(ReduceOp::max, x, a, keepdims, "amax");
}
Tensor amin(const Tensor& x, Axes a, bool keepdims) {
  KILN_HALF_IN_FLOAT32(amin, x, a, keepdims);
  check_concrete("amin", x);
  return x.dtype() == DType::bool_ ? bool_extreme(x, a, keepdims, false) : minmax(ReduceOp::min, x, a, keepdims, "amin");
}

}  // namespace kiln
