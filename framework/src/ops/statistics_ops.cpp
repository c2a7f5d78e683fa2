// average, ptp, moments, count_nonzero, bincount and histogram. The counts of
// bincount and histogram are found on the host (their length depends on the
// values); weighted counts scatter the weights so that they stay differentiable.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/statistics_ops.h"
#include "ops/op_util.h"

namespace kiln {

using namespace ops;

Tensor average(const Tensor& x, std::optional<int> axis, const std::optional<Tensor>& weights) {
  check_concrete("average", x);
  Tensor xf = is_floating(x.dtype()) ? x : cast(x, DType::float32);
  Axes axes = axis ? Axes(*axis) : Axes();
  if (!weights) return mean(xf, axes);
  check_concrete("average", *weights);
  Tensor w = cast(*weights, xf.dtype());
  if (w.shape() != x.shape()) {
    if (!axis)
      throw ValueError("average: axis must be specified when the shapes of x " + x.shape().to_string() +
                       " and weights " + w.shape().to_string() + " differ");
    const int a = normalize_axis("average", *axis, x.rank());
    if (w.rank() != 1 || w.shape()[0] != x.shape()[a])
      throw ShapeError("average: weights must have x's shape " + x.shape().to_string() +
                       " or be 1-D of the length of axis " + std::to_string(*axis) + ", but received shape " +
                       w.shape().to_string());
    Shape along(std::vector<int64_t>(static_cast<size_t>(x.rank()), 1));
    along.dims()[static_cast<size_t>(a)] = x.shape()[a];
    w = reshape(w, along);
  }
  return divide(sum(multiply(xf, w), axes), sum(broadcast_to(w, x.shape()), axes));
}

Tensor ptp(const Tensor& x, Axes a, bool keepdims) {
  check_concrete("ptp", x);
  return subtract(amax(x, a, keepdims), amin(x, a, keepdims));
}

std::pair<Tensor, Tensor> moments(const Tensor& x, Axes axes, bool keepdims) {
  check_concrete("moments", x);
  Tensor xf = is_floating(x.dtype()) ? x : cast(x, DType::float32);
  return {mean(xf, axes, keepdims), var(xf, axes, keepdims)};
}

Tensor count_nonzero(const Tensor& x, Axes a) {
  check_concrete("count_nonzero", x);
  Tensor nz = x.dtype() == DType::bool_ ? x : not_equal(x, scalar_like(0.0, x));
  return sum(cast(nz, DType::int32), a);
}

Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights, int64_t minlength) {
  check_concrete("bincount", x);
  if (!is_integer(x.dtype()) || (x.rank() != 1 && x.rank() != 2))
    throw ValueError("bincount: expected a 1-D or 2-D integer tensor, but received " + describe(x));
  if (minlength < 0) throw ValueError("bincount: minlength must be >= 0, but received " + std::to_string(minlength));
  if (weights && weights->shape() != x.shape())
    throw ShapeError("bincount: weights must have x's shape " + x.shape().to_string() + ", but received " +
                     weights->shape().to_string());
  const auto v = cast(x, DType::int64).to_vector<int64_t>();
  int64_t length = minlength;
  for (int64_t i : v) {
    if (i < 0) throw ValueError("bincount: x must hold non-negative integers, but received " + std::to_string(i));
    length = std::max(length, i + 1);
  }
  const int64_t rows = x.rank() == 2 ? x.shape()[0] : 1, per_row = rows ? x.size() / std::max<int64_t>(rows, 1) : 0;
  std::vector<int64_t> slot(v.size());
  for (size_t k = 0; k < v.size(); ++k) slot[k] = static_cast<int64_t>(k) / std::max<int64_t>(per_row, 1) * length + v[k];
  const Shape out = x.rank() == 2 ? Shape{rows, length} : Shape{length};
  if (weights && is_floating(weights->dtype())) {
    Tensor idx = Tensor(slot, Shape{static_cast<int64_t>(slot.size()), 1}).to(weights->device());
    return reshape(scatter(idx, reshape(*weights, Shape{weights->size()}), Shape{rows * length}), out);
  }
  std::vector<int64_t> counts(static_cast<size_t>(rows * length), 0);
  const auto w = weights ? cast(*weights, DType::int64).to_vector<int64_t>() : std::vector<int64_t>(v.size(), 1);
  for (size_t k = 0; k < slot.size(); ++k) counts[static_cast<size_t>(slot[k])] += w[k];
  return cast(Tensor(counts, out), weights && weights->dtype() == DType::int64 ? DType::int64 : DType::int32)
      .to(x.device());
}

std::pair<Tensor, Tensor> histogram(const Tensor& x, int64_t bins, std::optional<std::pair<double, double>> range) {
  check_concrete("histogram", x);
  if (bins < 0) throw ValueError("histogram: Argument `bins` should be a non-negative integer. Received: bins=" + std::to_string(bins));
  if (x.rank() > 1)
    throw ValueError("histogram: Input tensor must be 1-dimensional. Received: input.shape=" + x.shape().to_string());
  if (range && range->second < range->first)
    throw ValueError("histogram: The second element of `range` must be greater than the first. Received: range=(" +
                     std::to_string(range->first) + ", " + std::to_string(range->second) + ")");
  Tensor xf = is_floating(x.dtype()) ? x : cast(x, DType::float32);
  Tensor lo = range ? scalar_like(range->first, xf) : min(xf), hi = range ? scalar_like(range->second, xf) : max(xf);
  if (lo.item<double>() == hi.item<double>()) {
    lo = subtract(lo, scalar_like(0.5, lo));
    hi = add(hi, scalar_like(0.5, hi));
  }
  // Edges lo·(1 − t) + hi·t, t = i / bins, as jnp.linspace makes them.
  std::vector<float> t(static_cast<size_t>(bins + 1));
  for (int64_t i = 0; i <= bins; ++i) t[static_cast<size_t>(i)] = i == bins ? 1.0f : static_cast<float>(i) / static_cast<float>(bins);
  Tensor tt = cast(Tensor(t, Shape{bins + 1}), xf.dtype()).to(xf.device());
  Tensor edges = add(multiply(lo, subtract(scalar_like(1.0, tt), tt)), multiply(hi, tt));
  const auto e = cast(edges, DType::float64).to_vector<double>();
  std::vector<float> counts(static_cast<size_t>(bins), 0.0f);
  for (double v : cast(xf, DType::float64).to_vector<double>()) {
    // The bin of v is the last edge <= v; the top edge closes the last bin.
    auto pos = std::upper_bound(e.begin(), e.end(), v) - e.begin();
    if (bins > 0 && v == e.back()) pos = bins;
    if (pos >= 1 && pos <= bins) counts[static_cast<size_t>(pos - 1)] += 1.0f;
  }
  // Keras counts in a 16-bit input's own dtype, float32 otherwise.
  Tensor c = Tensor(counts, Shape{bins});
  if (is_half_float(x.dtype())) c = cast(c, x.dtype());
  return {c.to(x.device()), edges};
}

}  // namespace kiln
