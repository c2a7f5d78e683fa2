#pragma once
// keras.ops' element-wise maths under Keras's names, on top of math_ops.h.
// Every binary op broadcasts (NumPy rules) and promotes its operands as
// keras.backend.result_type does; on Kiln's dtypes that is the chain
//   bool < uint8 < int32 < int64 < float32 < float64
// (the larger of the two). Ops that only make sense on real numbers (log2,
// tan, ...) take integer and bool tensors as float32, as Keras's JAX backend
// does. Gradients follow JAX's wherever JAX differentiates the op:
//   Tensor y = kiln::logaddexp(a, b);   // log(exp(a) + exp(b)), stable
//   Tensor z = kiln::mod(kiln::range(-3, 3), kiln::fill({1}, 4, kiln::int32));  // [1 2 3 0 1 2]
#include <optional>

#include "kiln/core/tensor.h"

namespace kiln {

// ---- aliases and the complex functions on real tensors ----
/// keras.ops.absolute: |x|; a bool tensor is returned as it is.
Tensor absolute(const Tensor& x);
/// keras.ops.fabs: |x| as a floating tensor (integer and bool give float32).
Tensor fabs(const Tensor& x);
/// keras.ops.negative: -x; bool tensors throw TypeError.
Tensor negative(const Tensor& x);
/// keras.ops.power: a ** b in result_type(a, b) (two bool tensors give int32).
Tensor power(const Tensor& a, const Tensor& b);
/// keras.ops.true_divide: a / b in a floating dtype (integer and bool give float32).
Tensor true_divide(const Tensor& a, const Tensor& b);
/// keras.ops.mod: a mod b with the divisor's sign (floor_mod) in result_type(a, b);
/// two bool tensors give int32. An integer zero divisor throws ValueError.
Tensor mod(const Tensor& a, const Tensor& b);
/// keras.ops.conjugate: x itself on real tensors (same dtype).
Tensor conjugate(const Tensor& x);
Tensor conj(const Tensor& x);  ///< keras.ops.conj: conjugate(x).
Tensor real(const Tensor& x);  ///< keras.ops.real: x itself on real tensors.
Tensor imag(const Tensor& x);  ///< keras.ops.imag: zeros of x's shape and dtype on real tensors.
/// keras.ops.angle on real tensors: atan2(0, x), so pi where x < 0 (and at -0.0), 0 where
/// x > 0, NaN at NaN; integer and bool give float32.
Tensor angle(const Tensor& x);
/// keras.ops.isreal: true everywhere for Kiln's (real) dtypes, as a bool tensor.
Tensor isreal(const Tensor& x);
/// keras.ops.reciprocal: 1 / x in a floating dtype (integer and bool give float32).
Tensor reciprocal(const Tensor& x);
/// keras.ops.ceil: the smallest integer >= x, as a floating tensor (integer and bool
/// give float32, as in Keras). No gradient (zero).
Tensor ceil(const Tensor& x);
/// keras.ops.trunc: x rounded towards zero; integer and bool tensors are returned as they are.
Tensor trunc(const Tensor& x);
/// keras.ops.signbit: true where x is negative, -0.0 included, as a bool tensor.
/// (The sign of a NaN is not read: NaN gives false.)
Tensor signbit(const Tensor& x);

// ---- trigonometric and hyperbolic (integer and bool give float32) ----
Tensor tan(const Tensor& x);  ///< keras.ops.tan: tangent.
Tensor arcsin(const Tensor& x);  ///< keras.ops.arcsin: in [-pi/2, pi/2]; NaN outside [-1, 1].
Tensor arccos(const Tensor& x);  ///< keras.ops.arccos: in [0, pi]; NaN outside [-1, 1].
Tensor arctan(const Tensor& x);  ///< keras.ops.arctan: in (-pi/2, pi/2).
Tensor sinh(const Tensor& x);  ///< keras.ops.sinh: hyperbolic sine.
Tensor cosh(const Tensor& x);  ///< keras.ops.cosh: hyperbolic cosine.
Tensor arcsinh(const Tensor& x);  ///< keras.ops.arcsinh: inverse hyperbolic sine.
/// keras.ops.arccosh: inverse hyperbolic cosine; NaN below 1, and an infinite gradient at 1.
Tensor arccosh(const Tensor& x);
/// keras.ops.arctanh: inverse hyperbolic tangent; ±inf at ±1, NaN outside [-1, 1].
Tensor arctanh(const Tensor& x);
Tensor deg2rad(const Tensor& x);  ///< keras.ops.deg2rad: x * pi / 180.
Tensor rad2deg(const Tensor& x);  ///< keras.ops.rad2deg: x * 180 / pi.
/// keras.ops.sinc: sin(pi x) / (pi x), 1 at 0 (where its gradient is 0).
Tensor sinc(const Tensor& x);
/// keras.ops.hypot: sqrt(a² + b²) without overflow, inf where either is infinite;
/// in result_type(a, b) with integers as float32.
Tensor hypot(const Tensor& a, const Tensor& b);

// ---- exponents and logarithms (integer and bool give float32) ----
Tensor exp2(const Tensor& x);  ///< keras.ops.exp2: 2 ** x.
Tensor log2(const Tensor& x);  ///< keras.ops.log2: base-2 logarithm.
Tensor log10(const Tensor& x);  ///< keras.ops.log10: base-10 logarithm.
/// keras.ops.logaddexp: log(exp(a) + exp(b)) without overflow. -inf with -inf gives -inf;
/// the gradient is exp(a - out) and exp(b - out), as JAX's (1/2 each at a == b).
Tensor logaddexp(const Tensor& a, const Tensor& b);
/// keras.ops.logaddexp2: log2(2 ** a + 2 ** b) without overflow; gradient as logaddexp's in base 2.
Tensor logaddexp2(const Tensor& a, const Tensor& b);
/// keras.ops.cbrt: the real cube root (negative for negative x).
Tensor cbrt(const Tensor& x);
Tensor erfc(const Tensor& x);  ///< keras.ops.erfc: 1 - erf(x).
/// keras.ops.erfinv: the inverse error function on [-1, 1]: ±inf at ±1, NaN outside.
/// Gradient sqrt(pi) / 2 * exp(erfinv(x)²).
Tensor erfinv(const Tensor& x);
/// keras.ops.i0: the modified Bessel function of the first kind, order 0; its
/// gradient is i1(x). float64 stays float64, everything else gives float32.
Tensor i0(const Tensor& x);
/// keras.ops.ldexp: a * 2 ** b. b must be an integer tensor (not bool): TypeError
/// otherwise. The result is floating (integer and bool a give float32).
Tensor ldexp(const Tensor& a, const Tensor& b);

// ---- comparisons and predicates ----
Tensor isinf(const Tensor& x);  ///< keras.ops.isinf: true where x is ±inf (never for integers).
Tensor isposinf(const Tensor& x);  ///< keras.ops.isposinf: true where x is +inf.
Tensor isneginf(const Tensor& x);  ///< keras.ops.isneginf: true where x is -inf.
/// keras.ops.isclose: |a - b| <= atol + rtol * |b| where b is finite, or a == b (so inf
/// matches inf of the same sign); NaN matches NaN only with equal_nan. Compared in
/// result_type(a, b) with integers as float32.
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
/// keras.ops.allclose: whether isclose holds everywhere, as a scalar bool tensor.
Tensor allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
/// keras.ops.fmax: the larger of a and b, ignoring a NaN unless both are NaN;
/// in result_type(a, b) (two bool tensors: logical or).
Tensor fmax(const Tensor& a, const Tensor& b);
/// keras.ops.fmin: the smaller of a and b, ignoring a NaN unless both are NaN.
Tensor fmin(const Tensor& a, const Tensor& b);
/// keras.ops.fmod: the C remainder a - trunc(a / b) * b, with the dividend's sign;
/// in result_type(a, b) (two bool tensors give int32). An integer zero divisor throws ValueError.
Tensor fmod(const Tensor& a, const Tensor& b);
/// keras.ops.heaviside: 0 where x1 < 0, 1 where x1 > 0, x2 where x1 == 0, in a floating
/// dtype (integer and bool give float32). Differentiable in x2 only.
Tensor heaviside(const Tensor& x1, const Tensor& x2);
/// keras.ops.logical_xor: a XOR b, any dtype read as bool (non-zero is true).
Tensor logical_xor(const Tensor& a, const Tensor& b);
/// keras.ops.nan_to_num: NaN becomes `nan`, +inf `posinf` (default: the dtype's
/// largest finite value), -inf `neginf` (default: its lowest); integer and bool
/// tensors are returned as they are. The gradient passes where x is finite.
Tensor nan_to_num(const Tensor& x, double nan = 0.0, std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);
/// keras.ops.divide_no_nan: a / b, and 0 where b == 0 (gradient 0 there too); floating
/// (integer and bool give float32).
Tensor divide_no_nan(const Tensor& a, const Tensor& b);

}  // namespace kiln
