// in_top_k, searchsorted, digitize and isin, composed of comparisons and
// reductions, so they run on any device. NaN counts as larger than every
// number and equal to itself in the orders, as JAX's sort comparator does.
#include <limits>
#include <string>
#include <vector>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "kiln/ops/sort_ops.h"
#include "ops/op_util.h"
#include "ops/sort_util.h"

namespace kiln {

using namespace ops;

namespace {

/// Both tensors in one dtype for comparing: float64 if either is floating, else int64.
std::pair<Tensor, Tensor> search_common(const Tensor& a, const Tensor& b) {
  if (a.dtype() == b.dtype() && a.dtype() != DType::bool_) return {a, b};
  const DType d = is_floating(a.dtype()) || is_floating(b.dtype()) ? DType::float64 : DType::int64;
  return {cast(a, d), cast(b, d)};
}

/// a < b in the order that puts NaN after every number.
Tensor nan_last_less(const Tensor& a, const Tensor& b) {
  Tensor lt = less(a, b);
  if (!is_floating(a.dtype())) return lt;
  return logical_or(lt, logical_and(isnan(b), logical_not(isnan(a))));
}

}  // namespace

Tensor in_top_k(const Tensor& targets, const Tensor& predictions, int64_t k) {
  check_concrete("in_top_k", targets);
  check_concrete("in_top_k", predictions);
  if (!is_integer(targets.dtype()))
    throw TypeError("in_top_k: targets must be integer class indices, but received " + describe(targets));
  if (predictions.rank() != targets.rank() + 1)
    throw ShapeError("in_top_k: predictions must have one more axis than targets, but received targets of shape " +
                     targets.shape().to_string() + " and predictions of shape " + predictions.shape().to_string());
  const int64_t classes = predictions.shape().dims().back();
  Tensor mask = cast(one_hot(targets, classes, DType::float32), DType::bool_);
  Tensor at = sum(where(mask, predictions, zeros_like(predictions)), -1, true);
  if (is_floating(at.dtype()))
    at = where(isnan(at), scalar_like(-std::numeric_limits<double>::infinity(), at), at);
  Tensor above = sum(cast(greater(predictions, at), DType::int32), -1);
  return less(above, scalar_like(static_cast<double>(k), above));
}

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, const std::string& side) {
  check_concrete("searchsorted", sorted_sequence);
  check_concrete("searchsorted", values);
  if (sorted_sequence.rank() != 1)
    throw ValueError("searchsorted: `searchsorted` only supports 1-D sorted sequences. Received: sorted_sequence.shape=" +
                     sorted_sequence.shape().to_string());
  if (side != "left" && side != "right")
    throw ValueError("searchsorted: side must be 'left' or 'right', but received '" + side + "'");
  auto [seq, v] = search_common(sorted_sequence, values);
  Tensor col = reshape(v, Shape{v.size(), 1});
  Tensor row = reshape(seq, Shape{1, seq.size()});
  // left: the entries strictly before v; right: the entries not after it.
  Tensor before = side == "left" ? nan_last_less(row, col) : logical_not(nan_last_less(col, row));
  return reshape(sum(cast(before, DType::int32), 1), values.shape());
}

Tensor digitize(const Tensor& x, const Tensor& bins) {
  check_concrete("digitize", bins);
  if (bins.rank() != 1)
    throw ValueError("digitize: bins must be a 1-dimensional tensor, but received shape " + bins.shape().to_string());
  const int64_t n = bins.size();
  if (n == 0) return zeros(x.shape(), DType::int32).to(x.device());
  auto ends = cast(bins, DType::float64).to_vector<double>();
  if (ends.back() >= ends.front()) return searchsorted(bins, x, "right");
  std::vector<int64_t> rev(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) rev[static_cast<size_t>(i)] = n - 1 - i;
  Tensor reversed = gather(bins, Tensor(rev, Shape{n}).to(bins.device()), 0);
  Tensor pos = searchsorted(reversed, x, "right");
  return subtract(scalar_like(static_cast<double>(n), pos), pos);
}

Tensor isin(const Tensor& x1, const Tensor& x2, bool /*assume_unique*/, bool invert) {
  check_concrete("isin", x1);
  check_concrete("isin", x2);
  auto [a, b] = search_common(x1, x2);
  Tensor hit = any(equal(reshape(a, Shape{a.size(), 1}), reshape(b, Shape{1, b.size()})), 1);
  hit = reshape(hit, x1.shape());
  return invert ? logical_not(hit) : hit;
}

}  // namespace kiln
