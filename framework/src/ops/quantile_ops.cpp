// Quantiles as jnp.quantile computes them: the reduced axes are flattened to
// the last one, each row is sorted (NaN last), and the q-th quantile reads the
// two neighbouring order statistics at q·(n − 1) (in float32, as JAX's q) and
// weighs them by the method. The positions are found on the host; the values
// are gathered on the device, so gradients reach the entries read.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "kiln/ops/statistics_ops.h"
#include "ops/op_util.h"
#include "ops/sort_util.h"

namespace kiln {

using namespace ops;

namespace {

struct QuantileRequest {
  const char* op;
  std::vector<float> q;  // already in [0, 1]
  bool q_is_vector;
  std::string method;
  bool keepdims;
  bool skip_nan;  // nanquantile: ignore NaN instead of propagating it
};

/// x with the reduced axes flattened into one last axis; `kept` gets the result's shape.
Tensor rows_over_axes(const char* op, const Tensor& x, const Axes& a, Shape& kept, Shape& keepdim_shape) {
  auto axes = resolve_axes(op, a.axes, x.rank());
  std::vector<int> perm;
  for (int i = 0; i < x.rank(); ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) {
      perm.push_back(i);
      kept.push_back(x.shape()[i]);
    }
  perm.insert(perm.end(), axes.begin(), axes.end());
  keepdim_shape = keepdims_shape(x.shape(), axes);
  Shape rows = kept;
  rows.push_back(-1);
  if (x.size() == 0) throw ValueError(std::string(op) + ": cannot take it over an empty tensor of shape " + x.shape().to_string());
  return reshape(transpose(x, perm), rows);
}

/// One output's read: positions in the row and the weights of the lower and upper neighbour.
struct QuantileReads {
  std::vector<int64_t> low, high;
  std::vector<float> low_w, high_w;
};

QuantileReads plan_reads(const QuantileRequest& r, const Tensor& rows, const std::vector<int64_t>& order) {
  const int64_t n = rows.shape().dims().back(), nrows = row_count(rows);
  std::vector<double> v = cast(rows, DType::float64).to_vector<double>();
  QuantileReads p;
  for (int64_t row = 0; row < nrows; ++row) {
    int64_t count = n;
    if (r.skip_nan) count = std::count_if(v.begin() + row * n, v.begin() + (row + 1) * n, [](double d) { return !std::isnan(d); });
    for (float q : r.q) {
      const float at = q * static_cast<float>(count - 1);
      float lo = std::floor(at), hi = std::ceil(at);
      const float hw = at - lo, lw = 1.0f - hw;
      const float top = static_cast<float>(count - 1);
      lo = std::max(0.0f, std::min(lo, top));
      hi = std::max(0.0f, std::min(hi, top));
      int64_t li = static_cast<int64_t>(lo), hiI = static_cast<int64_t>(hi);
      if (r.method == "nearest") li = hiI = hw <= 0.5f ? li : hiI;
      if (r.method == "lower") hiI = li;
      if (r.method == "higher") li = hiI;
      p.low.push_back(order[static_cast<size_t>(row * n + li)]);
      p.high.push_back(order[static_cast<size_t>(row * n + hiI)]);
      p.low_w.push_back(r.method == "midpoint" ? 0.5f : lw);
      p.high_w.push_back(r.method == "midpoint" ? 0.5f : hw);
    }
  }
  return p;
}

Tensor quantile_impl(const QuantileRequest& r, const Tensor& x, const Axes& a) {
  check_concrete(r.op, x);
  static const char* methods[] = {"linear", "lower", "higher", "midpoint", "nearest"};
  if (std::find(std::begin(methods), std::end(methods), r.method) == std::end(methods))
    throw ValueError(std::string(r.op) + ": method must be one of 'linear', 'lower', 'higher', 'midpoint' or "
                     "'nearest', but received '" + r.method + "'");
  Tensor xf = is_floating(x.dtype()) ? x : cast(x, DType::float32);
  Shape kept, keepdim_shape;
  Tensor rows = rows_over_axes(r.op, xf, a, kept, keepdim_shape);
  // A NaN anywhere in a slice makes its quantile NaN (unless NaN is skipped).
  // NaN entries themselves get no gradient (they are replaced by a constant NaN, as in jnp).
  Tensor nan_at = r.skip_nan ? isnan(rows) : any(isnan(rows), -1, true);
  rows = where(nan_at, scalar_like(std::nan(""), rows), rows);
  const auto order = sorted_row_order(rows, false);
  const QuantileReads p = plan_reads(r, rows, order);
  const int64_t nq = static_cast<int64_t>(r.q.size());
  Tensor lo = take_rows(rows, p.low, nq), out = lo;
  if (r.method == "linear" || r.method == "midpoint") {
    Tensor hi = take_rows(rows, p.high, nq);
    Tensor lw = cast(Tensor(p.low_w, lo.shape()), lo.dtype()).to(lo.device());
    Tensor hw = cast(Tensor(p.high_w, lo.shape()), lo.dtype()).to(lo.device());
    out = r.method == "linear" ? add(multiply(lo, lw), multiply(hi, hw)) : multiply(add(lo, hi), scalar_like(0.5, lo));
  } else if (r.method == "higher" || r.method == "nearest") {
    out = take_rows(rows, p.high, nq);
  }
  Shape result = r.keepdims ? keepdim_shape : kept;
  if (!r.q_is_vector) return reshape(out, result);
  Shape with_q{nq};
  for (auto d : result) with_q.push_back(d);
  return reshape(last_to_axis(out, 0), with_q);
}

std::vector<float> checked_q(const char* op, const std::vector<double>& q, double scale) {
  std::vector<float> out;
  for (double v : q) {
    if (!(v >= 0 && v <= scale))
      throw ValueError(std::string(op) + ": q must be in [0, " + (scale == 1 ? "1" : "100") + "], but received " +
                       std::to_string(v));
    out.push_back(scale == 1 ? static_cast<float>(v) : static_cast<float>(v) / 100.0f);
  }
  return out;
}

Tensor quantile_entry(const char* op, const Tensor& x, const std::vector<double>& q, bool vec, double scale, Axes a,
                      const std::string& method, bool keepdims, bool skip_nan) {
  return quantile_impl(QuantileRequest{op, checked_q(op, q, scale), vec, method, keepdims, skip_nan}, x, a);
}

}  // namespace

Tensor quantile(const Tensor& x, double q, Axes a, const std::string& method, bool keepdims) {
  return quantile_entry("quantile", x, {q}, false, 1, a, method, keepdims, false);
}
Tensor quantile(const Tensor& x, const std::vector<double>& q, Axes a, const std::string& method, bool keepdims) {
  return quantile_entry("quantile", x, q, true, 1, a, method, keepdims, false);
}
Tensor percentile(const Tensor& x, double q, Axes a, const std::string& method, bool keepdims) {
  return quantile_entry("percentile", x, {q}, false, 100, a, method, keepdims, false);
}
Tensor percentile(const Tensor& x, const std::vector<double>& q, Axes a, const std::string& method, bool keepdims) {
  return quantile_entry("percentile", x, q, true, 100, a, method, keepdims, false);
}
Tensor median(const Tensor& x, Axes a, bool keepdims) {
  return quantile_entry("median", x, {0.5}, false, 1, a, "midpoint", keepdims, false);
}
Tensor nanquantile(const Tensor& x, double q, Axes a, const std::string& method, bool keepdims) {
  return quantile_entry("nanquantile", x, {q}, false, 1, a, method, keepdims, true);
}
Tensor nanquantile(const Tensor& x, const std::vector<double>& q, Axes a, const std::string& method, bool keepdims) {
  return quantile_entry("nanquantile", x, q, true, 1, a, method, keepdims, true);
}
Tensor nanpercentile(const Tensor& x, double q, Axes a, const std::string& method, bool keepdims) {
  return quantile_entry("nanpercentile", x, {q}, false, 100, a, method, keepdims, true);
}
Tensor nanpercentile(const Tensor& x, const std::vector<double>& q, Axes a, const std::string& method, bool keepdims) {
  return quantile_entry("nanpercentile", x, q, true, 100, a, method, keepdims, true);
}
Tensor nanmedian(const Tensor& x, Axes a, bool keepdims) {
  return quantile_entry("nanmedian", x, {0.5}, false, 1, a, "midpoint", keepdims, true);
}

}  // namespace kiln
