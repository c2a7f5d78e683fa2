// The Tensor member functions that are ops (x.cast(d), x.reshape(s), x[...]),
// the creation functions built from a cast, and the C++ operators on tensors
// and numbers.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "core/op_log.h"
#include "kiln/core/tensor.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "ops/half_compute.h"

namespace kiln {

Tensor Tensor::cast(DType d) const { return kiln::cast(*this, d); }
Tensor Tensor::reshape(const Shape& s) const { return kiln::reshape(*this, s); }
Tensor Tensor::operator[](const std::vector<Index>& idx) const { return kiln::slice(*this, idx); }
Tensor Tensor::operator[](int64_t i) const { return kiln::slice(*this, {Index(i)}); }


Tensor eye(int64_t n, std::optional<int64_t> m_opt, DType dtype) {
  KILN_LOG_OP(eye, n, m_opt, dtype);
  KILN_HALF_IN_FLOAT32(eye, n, m_opt, dtype);
  int64_t m = m_opt.value_or(n);
  std::vector<double> v(static_cast<std::size_t>(n * m), 0.0);
  for (int64_t i = 0; i < std::min(n, m); ++i) v[i * m + i] = 1.0;
  return cast(Tensor(v, Shape{n, m}), dtype);
}

Tensor range(double start, double stop, double step, DType dtype) {
  KILN_LOG_OP(range, start, stop, step, dtype);
  KILN_HALF_IN_FLOAT32(range, start, stop, step, dtype);
  if (step == 0) throw ValueError("range: step must not be zero");
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((stop - start) / step)));
  std::vector<double> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = start + step * static_cast<double>(i);
  return cast(Tensor(v, Shape{n}), dtype);
}
Tensor range(int64_t stop, DType dtype) {
  KILN_LOG_OP(range, stop, dtype);
  KILN_HALF_IN_FLOAT32(range, stop, dtype);
  return range(0.0, static_cast<double>(stop), 1.0, dtype);
}

Tensor linspace(double start, double stop, int64_t num, DType dtype) {
  KILN_LOG_OP(linspace, start, stop, num, dtype);
  KILN_HALF_IN_FLOAT32(linspace, start, stop, num, dtype);
  if (num < 0) throw ValueError("linspace: num must be >= 0, got " + std::to_string(num));
  std::vector<double> v(static_cast<std::size_t>(num));
  for (int64_t i = 0; i < num; ++i)
    v[i] = num == 1 ? start : start + (stop - start) * static_cast<double>(i) / static_cast<double>(num - 1);
  return cast(Tensor(v, Shape{num}), dtype);
}

// The operators.
Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return subtract(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return multiply(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return divide(a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator+(const Tensor& a, double b) { return add(a, scalar_like(b, a)); }
Tensor operator-(const Tensor& a, double b) { return subtract(a, scalar_like(b, a)); }
Tensor operator*(const Tensor& a, double b) { return multiply(a, scalar_like(b, a)); }
// Integer tensors divide as float32 (true division), so the scalar must not be rounded to an integer first.
namespace {
Tensor as_float_if_integer(const Tensor& t) { return is_floating(t.dtype()) ? t : cast(t, DType::float32); }
}  // namespace
Tensor operator/(const Tensor& a, double b) {
  Tensor af = as_float_if_integer(a);
  return divide(af, scalar_like(b, af));
}
Tensor operator+(double a, const Tensor& b) { return add(scalar_like(a, b), b); }
Tensor operator-(double a, const Tensor& b) { return subtract(scalar_like(a, b), b); }
Tensor operator*(double a, const Tensor& b) { return multiply(scalar_like(a, b), b); }
Tensor operator/(double a, const Tensor& b) {
  Tensor bf = as_float_if_integer(b);
  return divide(scalar_like(a, bf), bf);
}
Tensor operator==(const Tensor& a, const Tensor& b) { return equal(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return not_equal(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return less(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return less_equal(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return greater(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return greater_equal(a, b); }
namespace {
// The tensor a number is compared with: an integer (or bool) tensor against a
// number it cannot hold exactly compares in float64, as NumPy does.
Tensor comparable(const Tensor& t, double v) {
  if (is_floating(t.dtype())) return t;
  if (v == std::floor(v) && std::abs(v) < 9.0e15) return t;
  return cast(t, DType::float64);
}
template <class Cmp>
Tensor compare_number(Cmp cmp, const Tensor& t, double v, bool number_first) {
  Tensor c = comparable(t, v);
  Tensor s = scalar_like(v, c);
  return number_first ? cmp(s, c) : cmp(c, s);
}
}  // namespace
Tensor operator<(const Tensor& a, double b) { return compare_number(less, a, b, false); }
Tensor operator>(const Tensor& a, double b) { return compare_number(greater, a, b, false); }
Tensor operator<=(const Tensor& a, double b) { return compare_number(less_equal, a, b, false); }
Tensor operator>=(const Tensor& a, double b) { return compare_number(greater_equal, a, b, false); }
Tensor operator==(const Tensor& a, double b) { return compare_number(equal, a, b, false); }
Tensor operator!=(const Tensor& a, double b) { return compare_number(not_equal, a, b, false); }
Tensor operator==(double a, const Tensor& b) { return compare_number(equal, b, a, true); }
Tensor operator!=(double a, const Tensor& b) { return compare_number(not_equal, b, a, true); }
Tensor operator<(double a, const Tensor& b) { return compare_number(less, b, a, true); }
Tensor operator>(double a, const Tensor& b) { return compare_number(greater, b, a, true); }
Tensor operator<=(double a, const Tensor& b) { return compare_number(less_equal, b, a, true); }
Tensor operator>=(double a, const Tensor& b) { return compare_number(greater_equal, b, a, true); }

}  // namespace kiln
