#pragma once
// Element-wise maths with NumPy broadcasting, comparisons and matmul.
// Every op checks its inputs (full shapes in the message), computes through
// the backend of its inputs' device and records its gradient on active tapes.
// Python numbers mixed with tensors take the tensor's dtype (TF weak typing):
//   Tensor y = 2.0 * x + 1.0;   // same dtype as x
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

Tensor add(const Tensor& a, const Tensor& b);  ///< a + b, element-wise with broadcasting (keras.ops.add).
Tensor subtract(const Tensor& a, const Tensor& b);  ///< a - b, element-wise with broadcasting.
Tensor multiply(const Tensor& a, const Tensor& b);  ///< a * b, element-wise with broadcasting.
/// True division, as keras.ops.divide: integer (and bool) operands give float32.
Tensor divide(const Tensor& a, const Tensor& b);
/// floor(a / b), as keras.ops.floor_divide and Python's //: integers stay integers
/// (dividing an integer by zero throws ValueError). It has no gradient.
Tensor floor_divide(const Tensor& a, const Tensor& b);
/// x mod y with the sign of the divisor, as tf.math.floormod and Python's %:
/// floor_mod(-7, 3) == 2, floor_mod(7.5, -2) == -0.5. Ints and floats; an
/// integer zero divisor throws ValueError. Gradient as TF: d/da = 1, d/db = -floor(a / b).
Tensor floor_mod(const Tensor& a, const Tensor& b);
/// Element-wise sum of same-shape, same-dtype tensors (tf.math.add_n); no
/// broadcasting. Each input's gradient is the upstream gradient.
///   kiln::add_n({a, b, c})   // a + b + c
Tensor add_n(const std::vector<Tensor>& inputs);
/// a ** b, element-wise.
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, double exponent);  ///< a ** exponent, element-wise.
Tensor maximum(const Tensor& a, const Tensor& b);  ///< The larger of a and b, element-wise.
Tensor minimum(const Tensor& a, const Tensor& b);  ///< The smaller of a and b, element-wise.
/// min(max(x, lo), hi); the gradient passes where lo <= x <= hi.
Tensor clip(const Tensor& x, double lo, double hi);

Tensor neg(const Tensor& x);  ///< -x.
Tensor abs(const Tensor& x);  ///< |x|.
Tensor sign(const Tensor& x);  ///< -1, 0 or 1 by the sign of x.
Tensor exp(const Tensor& x);  ///< e ** x.
Tensor log(const Tensor& x);  ///< Natural logarithm.
Tensor log1p(const Tensor& x);  ///< log(1 + x), accurate for small x.
Tensor expm1(const Tensor& x);  ///< exp(x) - 1, accurate for small x.
Tensor sqrt(const Tensor& x);  ///< Square root.
Tensor rsqrt(const Tensor& x);  ///< 1 / sqrt(x).
Tensor square(const Tensor& x);  ///< x * x.
Tensor sin(const Tensor& x);  ///< Sine.
Tensor cos(const Tensor& x);  ///< Cosine.
Tensor tanh(const Tensor& x);  ///< Hyperbolic tangent.
/// The angle of the point (x, y) in radians, in [-pi, pi] (keras.ops.arctan2, std::atan2).
Tensor arctan2(const Tensor& y, const Tensor& x);
Tensor erf(const Tensor& x);  ///< The error function.
/// 1 / (1 + exp(-x))
Tensor sigmoid(const Tensor& x);
/// max(x, 0)
Tensor relu(const Tensor& x);
/// log(1 + exp(x)), computed stably; its derivative is sigmoid(x).
Tensor softplus(const Tensor& x);
Tensor floor(const Tensor& x);  ///< Largest integer <= x.
Tensor round(const Tensor& x);  ///< Nearest integer, halves to even (as tf.round).
/// True where x is NaN (a bool tensor).
Tensor isnan(const Tensor& x);
Tensor isfinite(const Tensor& x);  ///< True where x is finite (a bool tensor).

// Comparisons return bool tensors and have no gradient.
Tensor equal(const Tensor& a, const Tensor& b);  ///< a == b.
Tensor not_equal(const Tensor& a, const Tensor& b);  ///< a != b.
Tensor less(const Tensor& a, const Tensor& b);  ///< a < b.
Tensor less_equal(const Tensor& a, const Tensor& b);  ///< a <= b.
Tensor greater(const Tensor& a, const Tensor& b);  ///< a > b.
Tensor greater_equal(const Tensor& a, const Tensor& b);  ///< a >= b.
Tensor logical_and(const Tensor& a, const Tensor& b);  ///< a AND b, on bool tensors.
Tensor logical_or(const Tensor& a, const Tensor& b);  ///< a OR b, on bool tensors.
Tensor logical_not(const Tensor& x);  ///< NOT x, on a bool tensor.

/// Batched matrix product of the last two axes through BLAS (sgemm/dgemm).
/// a: (..., M, K), b: (..., K, N) -> (..., M, N); batch axes broadcast.
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);

Tensor operator+(const Tensor& a, const Tensor& b);  ///< add(a, b).
Tensor operator-(const Tensor& a, const Tensor& b);  ///< subtract(a, b).
Tensor operator*(const Tensor& a, const Tensor& b);  ///< multiply(a, b).
Tensor operator/(const Tensor& a, const Tensor& b);  ///< divide(a, b).
Tensor operator-(const Tensor& a);  ///< neg(a).
Tensor operator+(const Tensor& a, double b);  ///< a + b, b taking a's dtype.
Tensor operator-(const Tensor& a, double b);  ///< a - b, b taking a's dtype.
Tensor operator*(const Tensor& a, double b);  ///< a * b, b taking a's dtype.
Tensor operator/(const Tensor& a, double b);  ///< a / b, b taking a's dtype.
Tensor operator+(double a, const Tensor& b);  ///< a + b, a taking b's dtype.
Tensor operator-(double a, const Tensor& b);  ///< a - b, a taking b's dtype.
Tensor operator*(double a, const Tensor& b);  ///< a * b, a taking b's dtype.
Tensor operator/(double a, const Tensor& b);  ///< a / b, a taking b's dtype.
/// floor_mod: the result takes the divisor's sign (Python's %).
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator%(const Tensor& a, double b);  ///< floor_mod(a, b), b taking a's dtype.
Tensor operator%(double a, const Tensor& b);  ///< floor_mod(a, b), a taking b's dtype.
Tensor operator==(const Tensor& a, const Tensor& b);  ///< equal(a, b): a bool tensor.
Tensor operator!=(const Tensor& a, const Tensor& b);  ///< not_equal(a, b).
Tensor operator<(const Tensor& a, const Tensor& b);  ///< less(a, b).
Tensor operator<=(const Tensor& a, const Tensor& b);  ///< less_equal(a, b).
Tensor operator>(const Tensor& a, const Tensor& b);  ///< greater(a, b).
Tensor operator>=(const Tensor& a, const Tensor& b);  ///< greater_equal(a, b).
Tensor operator<(const Tensor& a, double b);  ///< less(a, b), b taking a's dtype.
Tensor operator>(const Tensor& a, double b);  ///< greater(a, b), b taking a's dtype.
Tensor operator<=(const Tensor& a, double b);  ///< less_equal(a, b), b taking a's dtype.
Tensor operator>=(const Tensor& a, double b);  ///< greater_equal(a, b), b taking a's dtype.
// Comparisons with a number follow NumPy: an integer tensor meets a
// fractional number in float64, so `labels == 0.5` is all false, never a
// comparison with a truncated 0.
Tensor operator==(const Tensor& a, double b);  ///< equal(a, b).
Tensor operator!=(const Tensor& a, double b);  ///< not_equal(a, b).
Tensor operator==(double a, const Tensor& b);  ///< equal(a, b).
Tensor operator!=(double a, const Tensor& b);  ///< not_equal(a, b).
// Templates so that `t == 0` stays a comparison with a number: a literal 0
// would convert to a const char* as readily as to a double.
/// equal(a, Tensor(b)): each string of a against the text b.
template <std::same_as<char> C>
Tensor operator==(const Tensor& a, const C* b) { return equal(a, Tensor(b)); }
/// not_equal(a, Tensor(b)).
template <std::same_as<char> C>
Tensor operator!=(const Tensor& a, const C* b) { return not_equal(a, Tensor(b)); }
Tensor operator<(double a, const Tensor& b);  ///< less(a, b).
Tensor operator>(double a, const Tensor& b);  ///< greater(a, b).
Tensor operator<=(double a, const Tensor& b);  ///< less_equal(a, b).
Tensor operator>=(double a, const Tensor& b);  ///< greater_equal(a, b).

}  // namespace kiln
