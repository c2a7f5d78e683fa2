// The Tensor member functions that are ops (x.cast(d), x.reshape(s), x[...]),
// and the creation functions built from a cast.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "core/op_log.h"
#include "kiln/core/tensor.h"
#include "kiln/ops/array_ops.h"

namespace kiln {

Tensor Tensor::cast(DType d) const { return kiln::cast(*this, d); }
Tensor Tensor::reshape(const Shape& s) const { return kiln::reshape(*this, s); }
Tensor Tensor::operator[](const std::vector<Index>& idx) const { return kiln::slice(*this, idx); }
Tensor Tensor::operator[](int64_t i) const { return kiln::slice(*this, {Index(i)}); }


Tensor eye(int64_t n, std::optional<int64_t> m_opt, DType dtype) {
  KILN_LOG_OP(eye, n, m_opt, dtype);
  int64_t m = m_opt.value_or(n);
  std::vector<double> v(static_cast<std::size_t>(n * m), 0.0);
  for (int64_t i = 0; i < std::min(n, m); ++i) v[i * m + i] = 1.0;
  return cast(Tensor(v, Shape{n, m}), dtype);
}

Tensor range(double start, double stop, double step, DType dtype) {
  KILN_LOG_OP(range, start, stop, step, dtype);
  if (step == 0) throw ValueError("range: step must not be zero");
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((stop - start) / step)));
  std::vector<double> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = start + step * static_cast<double>(i);
  return cast(Tensor(v, Shape{n}), dtype);
}
Tensor range(int64_t stop, DType dtype) {
  KILN_LOG_OP(range, stop, dtype);
  return range(0.0, static_cast<double>(stop), 1.0, dtype);
}

Tensor linspace(double start, double stop, int64_t num, DType dtype) {
  KILN_LOG_OP(linspace, start, stop, num, dtype);
  if (num < 0) throw ValueError("linspace: num must be >= 0, got " + std::to_string(num));
  std::vector<double> v(static_cast<std::size_t>(num));
  for (int64_t i = 0; i < num; ++i)
    v[i] = num == 1 ? start : start + (stop - start) * static_cast<double>(i) / static_cast<double>(num - 1);
  return cast(Tensor(v, Shape{num}), dtype);
}

}  // namespace kiln
