// Cumulative ops composed of slices, concatenation and element-wise maths:
// a scan doubles its reach each step (log2 n steps), so it runs on any device,
// and its gradient, also for products through zeros, comes from those ops.
#include "kiln/ops/cumulative_ops.h"

#include <algorithm>
#include <string>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "ops/op_util.h"
#include "ops/sort_util.h"

namespace kiln {

using namespace ops;

namespace {

/// The accumulation dtype of jnp.cumsum/cumprod: bool and uint8 widen to int32.
Tensor cumulative_input(const char* op, const Tensor& x, std::optional<DType> dtype) {
  check_concrete(op, x);
  Tensor y = dtype ? cast(x, *dtype) : x;
  if (y.dtype() == DType::bool_ || y.dtype() == DType::uint8) y = cast(y, DType::int32);
  return y;
}

Tensor cumulative_scan(const char* op, const Tensor& x, std::optional<int> axis, bool product) {
  Tensor y = axis ? x : reshape(x, Shape{x.size()});
  const int a = normalize_axis(op, axis.value_or(0), y.rank());
  const int64_t n = y.shape()[a];
  for (int64_t k = 1; k < n; k *= 2) {
    Tensor head = slice_axis(y, a, 0, k), tail = slice_axis(y, a, k, n), shifted = slice_axis(y, a, 0, n - k);
    y = concat({head, product ? multiply(tail, shifted) : add(tail, shifted)}, a);
  }
  return y;
}

Tensor cumulative_nan_to(const Tensor& x, double value) {
  return is_floating(x.dtype()) ? where(isnan(x), scalar_like(value, x), x) : x;
}

}  // namespace

Tensor cumsum(const Tensor& x, std::optional<int> axis, std::optional<DType> dtype) {
  return cumulative_scan("cumsum", cumulative_input("cumsum", x, dtype), axis, false);
}

Tensor cumprod(const Tensor& x, std::optional<int> axis, std::optional<DType> dtype) {
  return cumulative_scan("cumprod", cumulative_input("cumprod", x, dtype), axis, true);
}

Tensor nancumsum(const Tensor& x, std::optional<int> axis, std::optional<DType> dtype) {
  return cumulative_scan("nancumsum", cumulative_nan_to(cumulative_input("nancumsum", x, dtype), 0.0), axis, false);
}

Tensor nancumprod(const Tensor& x, std::optional<int> axis, std::optional<DType> dtype) {
  return cumulative_scan("nancumprod", cumulative_nan_to(cumulative_input("nancumprod", x, dtype), 1.0), axis, true);
}

Tensor diff(const Tensor& a, int n, int axis) {
  check_concrete("diff", a);
  if (n < 0) throw ValueError("diff: order must be non-negative, but received n=" + std::to_string(n));
  if (n > 0 && a.rank() == 0)
    throw ValueError("diff: expected a tensor of rank >= 1, but received a scalar");
  Tensor y = a;
  const int ax = n > 0 ? normalize_axis("diff", axis, a.rank()) : 0;
  for (int i = 0; i < n && y.shape()[ax] > 0; ++i) {
    const int64_t len = y.shape()[ax];
    Tensor hi = slice_axis(y, ax, 1, len), lo = slice_axis(y, ax, 0, len - 1);
    y = y.dtype() == DType::bool_ ? not_equal(hi, lo) : subtract(hi, lo);
  }
  return y;
}

Tensor trapezoid(const Tensor& y, const std::optional<Tensor>& x, double dx, int axis) {
  check_concrete("trapezoid", y);
  if (y.rank() == 0) throw ValueError("trapezoid: expected y of rank >= 1, but received a scalar");
  const int a = normalize_axis("trapezoid", axis, y.rank());
  Tensor yf = axis_to_last(is_floating(y.dtype()) ? y : cast(y, DType::float32), a);
  Tensor d;
  if (!x) {
    d = scalar_like(dx, yf);
  } else {
    Tensor xf = is_floating(x->dtype()) ? *x : cast(*x, DType::float32);
    if (x->rank() != 1 && x->shape() != y.shape())
      throw ValueError("trapezoid: x must be 1-D or of y's shape " + y.shape().to_string() +
                       ", but received shape " + x->shape().to_string());
    d = x->rank() == 1 ? diff(xf) : axis_to_last(diff(xf, 1, a), a);
    if (d.dtype() != yf.dtype()) d = cast(d, yf.dtype());
  }
  const int64_t n = yf.shape().dims().back();
  const int last = static_cast<int>(yf.rank()) - 1;
  Tensor pair_sum = add(slice_axis(yf, last, 1, n), slice_axis(yf, last, 0, std::max<int64_t>(n - 1, 0)));
  return multiply(sum(multiply(d, pair_sum), -1), scalar_like(0.5, yf));
}

}  // namespace kiln
