// Reductions that skip NaN, composed as jnp's: NaN is replaced by the
// reduction's identity, and slices of NaN alone give NaN (or -1 for the arg
// reductions). Integers and bool hold no NaN and reduce as usual.
#include <cmath>
#include <limits>
#include <string>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/statistics_ops.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

namespace {

constexpr double kNanInf = std::numeric_limits<double>::infinity();

Tensor nan_replaced(const Tensor& x, double value) { return where(isnan(x), scalar_like(value, x), x); }

/// bool sums and products count in int32, as jnp.sum does.
Tensor nan_numeric(const char* op, const Tensor& x) {
  check_concrete(op, x);
  return x.dtype() == DType::bool_ ? cast(x, DType::int32) : x;
}

Tensor nan_extreme(const char* op, const Tensor& x, Axes a, bool keepdims, bool is_max) {
  check_concrete(op, x);
  if (!is_floating(x.dtype())) return is_max ? amax(x, a, keepdims) : amin(x, a, keepdims);
  Tensor r = is_max ? max(nan_replaced(x, -kNanInf), a, keepdims) : min(nan_replaced(x, kNanInf), a, keepdims);
  return where(all(isnan(x), a, keepdims), scalar_like(std::nan(""), r), r);
}

Tensor nan_arg(const char* op, const Tensor& x, std::optional<int> axis, bool keepdims, bool is_max) {
  check_concrete(op, x);
  Tensor flat = axis ? x : reshape(x, Shape{x.size()});
  const int a = normalize_axis(op, axis.value_or(0), flat.rank());
  Tensor r;
  if (!is_floating(x.dtype())) {
    Tensor v = x.dtype() == DType::bool_ ? cast(flat, DType::int32) : flat;
    r = cast(is_max ? argmax(v, a) : argmin(v, a), DType::int32);
  } else {
    Tensor v = nan_replaced(flat, is_max ? -kNanInf : kNanInf);
    r = cast(is_max ? argmax(v, a) : argmin(v, a), DType::int32);
    r = where(all(isnan(flat), a), scalar_like(-1.0, r), r);
  }
  if (!keepdims) return r;
  Shape ks = axis ? x.shape() : Shape(std::vector<int64_t>(static_cast<size_t>(x.rank()), 1));
  if (axis) ks.dims()[static_cast<size_t>(a)] = 1;
  return reshape(r, ks);
}

/// The count of non-NaN entries over `a`, in x's float dtype.
Tensor nan_count(const Tensor& x, Axes a, bool keepdims) {
  return sum(cast(logical_not(isnan(x)), x.dtype()), a, keepdims);
}

}  // namespace

Tensor nansum(const Tensor& x, Axes a, bool keepdims) {
  Tensor v = nan_numeric("nansum", x);
  return sum(is_floating(v.dtype()) ? nan_replaced(v, 0.0) : v, a, keepdims);
}

Tensor nanprod(const Tensor& x, Axes a, bool keepdims) {
  Tensor v = nan_numeric("nanprod", x);
  return prod(is_floating(v.dtype()) ? nan_replaced(v, 1.0) : v, a, keepdims);
}

Tensor nanmax(const Tensor& x, Axes a, bool keepdims) { return nan_extreme("nanmax", x, a, keepdims, true); }
Tensor nanmin(const Tensor& x, Axes a, bool keepdims) { return nan_extreme("nanmin", x, a, keepdims, false); }

Tensor nanmean(const Tensor& x, Axes a, bool keepdims) {
  check_concrete("nanmean", x);
  if (!is_floating(x.dtype())) return mean(x, a, keepdims);
  return divide(sum(nan_replaced(x, 0.0), a, keepdims), nan_count(x, a, keepdims));
}

Tensor nanvar(const Tensor& x, Axes a, bool keepdims) {
  check_concrete("nanvar", x);
  Tensor xf = is_floating(x.dtype()) ? x : cast(x, DType::float32);
  Tensor centered = nan_replaced(subtract(xf, nanmean(xf, a, true)), 0.0);
  Tensor n = nan_count(xf, a, keepdims);
  Tensor r = divide(sum(square(centered), a, keepdims), n);
  return where(less_equal(n, scalar_like(0.0, n)), scalar_like(std::nan(""), r), r);
}

Tensor nanstd(const Tensor& x, Axes a, bool keepdims) { return sqrt(nanvar(x, a, keepdims)); }

Tensor nanargmax(const Tensor& x, std::optional<int> axis, bool keepdims) {
  return nan_arg("nanargmax", x, axis, keepdims, true);
}
Tensor nanargmin(const Tensor& x, std::optional<int> axis, bool keepdims) {
  return nan_arg("nanargmin", x, axis, keepdims, false);
}

}  // namespace kiln
