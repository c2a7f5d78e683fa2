// keras.ops' names for Kiln's arithmetic (absolute, negative, power, mod, ...)
// and the rounding ops ceil, trunc and signbit, with Keras's dtype rules.
#include <string>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/elementwise_math.h"
#include "kiln/ops/math_ops.h"
#include "ops/elementwise_promotion.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

Tensor absolute(const Tensor& x) {
  check_concrete("absolute", x);
  return x.dtype() == DType::bool_ ? identity(x) : abs(x);
}

Tensor fabs(const Tensor& x) {
  check_concrete("fabs", x);
  return abs(floating_or_float32(x));
}

Tensor negative(const Tensor& x) {
  check_concrete("negative", x);
  if (x.dtype() == DType::bool_)
    throw TypeError("negative: the negative of a bool tensor is not defined (use logical_not), but received " +
                    describe(x));
  return neg(x);
}

Tensor power(const Tensor& a, const Tensor& b) {
  check_concrete("power", a);
  check_concrete("power", b);
  auto [pa, pb] = keras_promote_pair_arithmetic(a, b);
  return pow(pa, pb);
}

Tensor true_divide(const Tensor& a, const Tensor& b) {
  check_concrete("true_divide", a);
  check_concrete("true_divide", b);
  auto [pa, pb] = keras_promote_pair_floating(a, b);
  return divide(pa, pb);
}

Tensor mod(const Tensor& a, const Tensor& b) {
  check_concrete("mod", a);
  check_concrete("mod", b);
  auto [pa, pb] = keras_promote_pair_arithmetic(a, b);
  return floor_mod(pa, pb);
}

Tensor conjugate(const Tensor& x) {
  check_concrete("conjugate", x);
  return identity(x);
}
Tensor conj(const Tensor& x) { return conjugate(x); }
Tensor real(const Tensor& x) {
  check_concrete("real", x);
  return identity(x);
}
Tensor imag(const Tensor& x) {
  check_concrete("imag", x);
  return zeros_like(x);
}

Tensor angle(const Tensor& x) {
  check_concrete("angle", x);
  // jnp.angle is atan2(imag, real); on a real x that is atan2(0, x), which
  // also gives pi at -0.0 and NaN at NaN, and JAX's gradient of it.
  Tensor xf = floating_or_float32(x);
  return arctan2(zeros_like(xf), xf);
}

Tensor isreal(const Tensor& x) {
  check_concrete("isreal", x);
  return cast(ones_like(x), DType::bool_);
}

Tensor reciprocal(const Tensor& x) {
  check_concrete("reciprocal", x);
  Tensor xf = floating_or_float32(x);
  return divide(ones_like(xf), xf);
}

Tensor ceil(const Tensor& x) {
  check_concrete("ceil", x);
  return neg(floor(neg(floating_or_float32(x))));
}

Tensor trunc(const Tensor& x) {
  check_concrete("trunc", x);
  if (!is_floating(x.dtype())) return identity(x);
  return where(x < 0.0, neg(floor(neg(x))), floor(x));
}

Tensor signbit(const Tensor& x) {
  check_concrete("signbit", x);
  if (x.dtype() == DType::bool_ || x.dtype() == DType::uint8) return cast(zeros_like(x), DType::bool_);
  Tensor negative_values = x < 0.0;
  if (!is_floating(x.dtype())) return negative_values;
  // -0.0 compares equal to 0.0; its sign shows in 1 / x = -inf.
  Tensor zero = equal(x, zeros_like(x));
  Tensor negative_zero = logical_and(zero, divide(ones_like(x), where(zero, x, ones_like(x))) < 0.0);
  return logical_or(negative_values, negative_zero);
}

}  // namespace kiln
