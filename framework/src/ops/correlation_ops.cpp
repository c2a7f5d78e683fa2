// correlate and corrcoef, composed of gathers, sums and matmul as jnp computes
// them (conv_general_dilated's cross-correlation; cov with ddof 1), so both run
// on every device and take their gradients from those ops.
#include <string>
#include <vector>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/statistics_ops.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

namespace {

Tensor correlation_float(const Tensor& x) { return is_floating(x.dtype()) ? x : cast(x, DType::float32); }

}  // namespace

Tensor correlate(const Tensor& x1, const Tensor& x2, const std::string& mode) {
  check_concrete("correlate", x1);
  check_concrete("correlate", x2);
  if (x1.rank() != 1 || x2.rank() != 1)
    throw ValueError("correlate: only 1-D inputs are supported, but received shapes " + x1.shape().to_string() +
                     " and " + x2.shape().to_string());
  if (x1.size() == 0 || x2.size() == 0)
    throw ValueError("correlate: inputs cannot be empty, got shapes " + x1.shape().to_string() + " and " +
                     x2.shape().to_string());
  Tensor a = correlation_float(x1), v = correlation_float(x2);
  if (a.dtype() != v.dtype()) {
    a = cast(a, DType::float64);
    v = cast(v, DType::float64);
  }
  const bool swap = a.size() < v.size();
  if (swap) std::swap(a, v);
  const int64_t n = a.size(), m = v.size();
  int64_t left = 0, right = 0;
  if (mode == "same") {
    left = m / 2;
    right = m - m / 2 - 1;
  } else if (mode == "full") {
    left = right = m - 1;
  } else if (mode != "valid") {
    throw ValueError("correlate: mode must be one of ['full', 'same', 'valid'], but received '" + mode + "'");
  }
  Tensor padded = concat({zeros(Shape{left}, a.dtype()).to(a.device()), a, zeros(Shape{right}, a.dtype()).to(a.device())}, 0);
  const int64_t len = n + left + right - m + 1;
  std::vector<int64_t> idx;
  idx.reserve(static_cast<size_t>(len * m));
  for (int64_t k = 0; k < len; ++k)
    for (int64_t j = 0; j < m; ++j) idx.push_back(swap ? (len - 1 - k) + j : k + j);
  Tensor windows = gather(padded, Tensor(idx, Shape{len, m}).to(a.device()), 0);
  return sum(multiply(windows, reshape(v, Shape{1, m})), 1);
}

Tensor corrcoef(const Tensor& x) {
  check_concrete("corrcoef", x);
  if (x.rank() > 2)
    throw ValueError("corrcoef: expected a 1-D or 2-D tensor, but received shape " + x.shape().to_string());
  Tensor rows = correlation_float(x.rank() == 2 ? x : reshape(x, Shape{1, x.size()}));
  const int64_t obs = rows.shape()[1];
  Tensor centered = subtract(rows, mean(rows, 1, true));
  Tensor c = divide(matmul(centered, centered, false, true), scalar_like(static_cast<double>(obs - 1), rows));
  if (x.rank() < 2 || rows.shape()[0] == 1) {
    Tensor one = reshape(c, Shape{});
    return divide(one, one);
  }
  const int64_t vars = rows.shape()[0];
  std::vector<int64_t> diag_pos;
  for (int64_t i = 0; i < vars; ++i) diag_pos.push_back(i * vars + i);
  Tensor stddev = sqrt(gather(reshape(c, Shape{vars * vars}), Tensor(diag_pos, Shape{vars}).to(c.device()), 0));
  c = divide(divide(c, reshape(stddev, Shape{vars, 1})), reshape(stddev, Shape{1, vars}));
  return minimum(maximum(c, scalar_like(-1.0, c)), scalar_like(1.0, c));
}

}  // namespace kiln
