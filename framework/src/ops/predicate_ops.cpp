// keras.ops' predicates and NaN-aware comparisons: isinf, isclose, fmax,
// fmod, heaviside, nan_to_num, divide_no_nan, ...
#include <cmath>
#include <limits>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/elementwise_math.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "ops/elementwise_promotion.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor all_false_like(const Tensor& x) { return cast(zeros_like(x), DType::bool_); }

Tensor compare_with_inf(const char* op, const Tensor& x, double value) {
  check_concrete(op, x);
  if (!is_floating(x.dtype())) return all_false_like(x);
  return equal(x, zeros_like(x) + value);
}

/// jnp.fmax/fmin: a where it wins the comparison or b is NaN, else b (so b on
/// ties, and a when both are NaN); the gradient follows the value taken.
template <class Wins>
Tensor nan_ignoring(const char* op, const Tensor& a, const Tensor& b, Wins wins) {
  check_concrete(op, a);
  check_concrete(op, b);
  auto [pa, pb] = keras_promote_pair(a, b);
  Tensor take_a = wins(pa, pb);
  if (is_floating(pa.dtype())) take_a = logical_or(take_a, isnan(pb));
  return where(take_a, pa, pb);
}

}  // namespace

Tensor isinf(const Tensor& x) { return compare_with_inf("isinf", is_floating(x.dtype()) ? abs(x) : x, kInf); }
Tensor isposinf(const Tensor& x) { return compare_with_inf("isposinf", x, kInf); }
Tensor isneginf(const Tensor& x) { return compare_with_inf("isneginf", x, -kInf); }

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  check_concrete("isclose", a);
  check_concrete("isclose", b);
  auto [fa, fb] = keras_promote_pair_floating(a, b);
  Tensor close = logical_and(isfinite(fb), abs(fa - fb) <= abs(fb) * rtol + atol);
  Tensor out = logical_or(equal(fa, fb), close);
  return equal_nan ? logical_or(out, logical_and(isnan(fa), isnan(fb))) : out;
}

Tensor allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  Tensor far = sum(cast(logical_not(isclose(a, b, rtol, atol, equal_nan)), DType::int32));
  return equal(far, scalar_like(0.0, far));
}

Tensor fmax(const Tensor& a, const Tensor& b) {
  if (a.dtype() == DType::bool_ && b.dtype() == DType::bool_) return logical_or(a, b);
  return nan_ignoring("fmax", a, b, [](const Tensor& x, const Tensor& y) { return greater(x, y); });
}

Tensor fmin(const Tensor& a, const Tensor& b) {
  if (a.dtype() == DType::bool_ && b.dtype() == DType::bool_) return logical_and(a, b);
  return nan_ignoring("fmin", a, b, [](const Tensor& x, const Tensor& y) { return less(x, y); });
}

Tensor fmod(const Tensor& a, const Tensor& b) {
  check_concrete("fmod", a);
  check_concrete("fmod", b);
  auto [pa, pb] = keras_promote_pair_arithmetic(a, b);
  if (pa.dtype() == DType::uint8) return floor_mod(pa, pb);  // no signs: the two remainders agree
  // fmod(a, b) = sign(a) * (|a| mod |b|): the floor remainder of two
  // non-negative numbers is the C remainder, exact, and its derivative in b
  // is -trunc(a / b) as JAX's rem.
  Tensor r = floor_mod(abs(pa), abs(pb));
  return where(pa < 0.0, neg(r), r);
}

Tensor heaviside(const Tensor& x1, const Tensor& x2) {
  check_concrete("heaviside", x1);
  check_concrete("heaviside", x2);
  auto [a, b] = keras_promote_pair_floating(x1, x2);
  // As jnp.heaviside: a NaN x1 comes through as it is.
  return where(a < 0.0, zeros_like(a), where(a > 0.0, ones_like(a), where(isnan(a), a, b)));
}

Tensor logical_xor(const Tensor& a, const Tensor& b) {
  check_concrete("logical_xor", a);
  check_concrete("logical_xor", b);
  return not_equal(cast(a, DType::bool_), cast(b, DType::bool_));
}

Tensor nan_to_num(const Tensor& x, double nan, std::optional<double> posinf, std::optional<double> neginf) {
  check_concrete("nan_to_num", x);
  if (!is_floating(x.dtype())) return identity(x);
  // The largest finite value of x's own dtype.
  const double top = x.dtype() == DType::float16    ? 65504.0
                     : x.dtype() == DType::bfloat16 ? 3.3895313892515355e38
                     : x.dtype() == DType::float32  ? std::numeric_limits<float>::max()
                                                    : std::numeric_limits<double>::max();
  Tensor out = where(isnan(x), zeros_like(x) + nan, x);
  out = where(equal(x, zeros_like(x) + kInf), zeros_like(x) + posinf.value_or(top), out);
  return where(equal(x, zeros_like(x) - kInf), zeros_like(x) + neginf.value_or(-top), out);
}

Tensor divide_no_nan(const Tensor& a, const Tensor& b) {
  check_concrete("divide_no_nan", a);
  check_concrete("divide_no_nan", b);
  auto [fa, fb] = keras_promote_pair_floating(a, b);
  Tensor zero = equal(fb, zeros_like(fb));
  Tensor safe_b = where(zero, ones_like(fb), fb);
  Tensor q = divide(fa, safe_b);
  return where(zero, zeros_like(q), q);
}

}  // namespace kiln
