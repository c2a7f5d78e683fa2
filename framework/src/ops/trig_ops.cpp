// keras.ops' trigonometric and hyperbolic functions, composed from Kiln's
// differentiable primitives (so their gradients and devices come for free).
// Integer and bool inputs are taken as float32, as Keras's JAX backend does.
#include <cmath>
#include <limits>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/elementwise_math.h"
#include "kiln/ops/math_ops.h"
#include "ops/elementwise_promotion.h"
#include "ops/op_util.h"
#include "ops/half_compute.h"

namespace kiln {

using namespace ops;

namespace {

/// (1 - x)(1 + x), which keeps its precision near ±1 where 1 - x² loses it.
Tensor one_minus_square(const Tensor& x) { return (1.0 - x) * (1.0 + x); }

Tensor float_input(const char* op, const Tensor& x) {
  check_concrete(op, x);
  return floating_or_float32(x);
}

}  // namespace

Tensor tan(const Tensor& x) {
  Tensor xf = float_input("tan", x);
  return divide(sin(xf), cos(xf));
}

Tensor arcsin(const Tensor& x) {
  Tensor xf = float_input("arcsin", x);
  return arctan2(xf, sqrt(one_minus_square(xf)));
}

Tensor arccos(const Tensor& x) {
  Tensor xf = float_input("arccos", x);
  return arctan2(sqrt(one_minus_square(xf)), xf);
}

Tensor arctan(const Tensor& x) {
  Tensor xf = float_input("arctan", x);
  return arctan2(xf, ones_like(xf));
}

Tensor sinh(const Tensor& x) {
  Tensor xf = float_input("sinh", x);
  // expm1 keeps sinh's precision near 0, where exp(x) - exp(-x) cancels.
  return (expm1(xf) - expm1(neg(xf))) * 0.5;
}

Tensor cosh(const Tensor& x) {
  Tensor xf = float_input("cosh", x);
  return (exp(xf) + exp(neg(xf))) * 0.5;
}

Tensor arcsinh(const Tensor& x) {
  KILN_HALF_IN_FLOAT32(arcsinh, x);  // a² overflows float16 long before asinh does
  Tensor xf = float_input("arcsinh", x);
  // asinh is odd: evaluate log1p(a + a² / (1 + sqrt(1 + a²))) on a = |x| (exact
  // near 0), mirrored through where so that the gradient at 0 is 1, not sign(0).
  auto positive = [](const Tensor& a) { return log1p(a + square(a) / (1.0 + sqrt(1.0 + square(a)))); };
  Tensor neg_side = xf < 0.0;
  Tensor a = where(neg_side, neg(xf), xf);
  // Past 1e18, a² overflows float32: there asinh(a) = log(2a) to float precision.
  Tensor big = a > 1e18;
  Tensor small_a = where(big, ones_like(a), a);
  Tensor big_a = where(big, a, ones_like(a));
  Tensor y = where(big, log(big_a) + std::log(2.0), positive(small_a));
  return where(neg_side, neg(y), y);
}

Tensor arccosh(const Tensor& x) {
  Tensor xf = float_input("arccosh", x);
  // log1p(t + sqrt(t (t + 2))) with t = x - 1 keeps the precision near 1;
  // below 1 the square root is NaN, as acosh is.
  Tensor t = xf - 1.0;
  Tensor big = xf > 1e18;
  Tensor small_t = where(big, ones_like(t), t);
  Tensor big_x = where(big, xf, ones_like(xf));
  return where(big, log(big_x) + std::log(2.0), log1p(small_t + sqrt(small_t * (small_t + 2.0))));
}

Tensor arctanh(const Tensor& x) {
  Tensor xf = float_input("arctanh", x);
  return (log1p(xf) - log1p(neg(xf))) * 0.5;
}

Tensor deg2rad(const Tensor& x) { return float_input("deg2rad", x) * (M_PI / 180.0); }
Tensor rad2deg(const Tensor& x) { return float_input("rad2deg", x) * (180.0 / M_PI); }

Tensor sinc(const Tensor& x) {
  Tensor xf = float_input("sinc", x);
  // As jnp.sinc: 1 at 0, with a safe denominator there so that the gradient
  // (0 at 0) does not pick up 0 * inf.
  Tensor zero = equal(xf, zeros_like(xf));
  Tensor pi_x = where(zero, ones_like(xf), xf * M_PI);
  return where(zero, ones_like(xf), sin(pi_x) / pi_x);
}

Tensor hypot(const Tensor& a, const Tensor& b) {
  check_concrete("hypot", a);
  check_concrete("hypot", b);
  auto [fa, fb] = keras_promote_pair_floating(a, b);
  // jnp.hypot's formula: big * sqrt(1 + (small / big)²), 0 where big is 0,
  // inf where either is infinite (even against NaN).
  Tensor abs_a = abs(fa), abs_b = abs(fb);
  const double inf = std::numeric_limits<double>::infinity();
  Tensor any_inf = logical_or(abs_a == inf, abs_b == inf);
  Tensor big = maximum(abs_a, abs_b), small = minimum(abs_a, abs_b);
  Tensor big_zero = equal(big, zeros_like(big));
  Tensor safe_big = where(big_zero, ones_like(big), big);
  Tensor h = where(big_zero, big, big * sqrt(1.0 + square(small / safe_big)));
  return where(any_inf, zeros_like(h) + inf, h);
}

}  // namespace kiln
