// Sequences and filled tensors (kiln/ops/creation_ops.h). The sequences are
// computed in double on the host and cast once, so float32 results are the
// correctly rounded values.
#include <cmath>
#include <limits>
#include <string>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/creation_ops.h"
#include "ops/compose_util.h"
#include "ops/op_util.h"

namespace kiln {

namespace {

Tensor sequence_tensor(std::vector<double> v, DType dtype) {
  if (is_integer(dtype))
    for (double& x : v) x = std::floor(x);
  const int64_t n = static_cast<int64_t>(v.size());
  return cast(Tensor(v, Shape({n})), dtype).to(default_device());
}

/// start + i * step for i < num, the last set to stop when `endpoint` (NumPy's linspace).
std::vector<double> spaced(const char* op, double start, double stop, int64_t num, bool endpoint) {
  if (num < 0) throw ValueError(std::string(op) + ": Number of samples, " + std::to_string(num) + ", must be non-negative.");
  std::vector<double> v(static_cast<std::size_t>(num));
  const int64_t div = endpoint ? num - 1 : num;
  const double step = div > 0 ? (stop - start) / static_cast<double>(div) : 0.0;
  for (int64_t i = 0; i < num; ++i) v[static_cast<std::size_t>(i)] = start + static_cast<double>(i) * step;
  if (endpoint && num > 1) v.back() = stop;
  return v;
}

}  // namespace

Tensor arange(double start, std::optional<double> stop, double step, DType dtype) {
  if (!stop) {
    stop = start;
    start = 0;
  }
  if (step == 0 || !std::isfinite(step)) throw ValueError("arange: step must be finite and non-zero, but received " + std::to_string(step));
  const double count = std::ceil((*stop - start) / step);
  if (!std::isfinite(count)) throw ValueError("arange: start and stop must be finite");
  std::vector<double> v(static_cast<std::size_t>(std::max(count, 0.0)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<double>(i) * step;
  return sequence_tensor(std::move(v), dtype);
}

Tensor linspace(double start, double stop, int64_t num, bool endpoint, DType dtype) {
  return sequence_tensor(spaced("linspace", start, stop, num, endpoint), dtype);
}

Tensor logspace(double start, double stop, int64_t num, bool endpoint, double base, DType dtype) {
  std::vector<double> v = spaced("logspace", start, stop, num, endpoint);
  for (double& x : v) x = std::pow(base, x);
  return sequence_tensor(std::move(v), dtype);
}

Tensor geomspace(double start, double stop, int64_t num, bool endpoint, DType dtype) {
  if (start == 0 || stop == 0) throw ValueError("geomspace: Geometric sequence cannot include zero");
  const double sign = start < 0 ? -1.0 : 1.0;
  // Start and stop of opposite signs have no real geometric sequence: NaN between the ends, as in JAX.
  const double hi = stop / sign > 0 ? std::log10(stop / sign) : std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v = spaced("geomspace", std::log10(start / sign), hi, num, endpoint);
  for (double& x : v) x = sign * std::pow(10.0, x);
  if (num > 0) v.front() = start;
  if (endpoint && num > 1) v.back() = stop;
  return sequence_tensor(std::move(v), dtype);
}

Tensor full_like(const Tensor& x, double fill_value, std::optional<DType> dtype) {
  return fill(x.shape(), fill_value, dtype.value_or(x.dtype())).to(x.device());
}

Tensor empty_like(const Tensor& x, std::optional<DType> dtype) { return full_like(x, 0.0, dtype); }

std::vector<Tensor> meshgrid(const std::vector<Tensor>& xs, const std::string& indexing) {
  if (indexing != "xy" && indexing != "ij")
    throw ValueError("meshgrid: Valid values for indexing are 'xy' and 'ij', but received '" + indexing + "'");
  const bool xy = indexing == "xy" && xs.size() >= 2;
  std::vector<int64_t> full;
  for (const Tensor& x : xs) {
    if (x.rank() != 1) throw ValueError("meshgrid: expected 1-D tensors, but received " + ops::describe(x));
    full.push_back(x.shape()[0]);
  }
  if (xy) std::swap(full[0], full[1]);
  std::vector<Tensor> out;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    std::vector<int64_t> dims(xs.size(), 1);
    const std::size_t at = xy && i < 2 ? 1 - i : i;
    dims[at] = xs[i].shape()[0];
    out.push_back(broadcast_to(reshape(xs[i], Shape(dims)), Shape(full)));
  }
  return out;
}

}  // namespace kiln
