// Picking entries by index or condition (kiln/ops/shape_ops.h): take,
// take_along_axis, select and slice_update, on gather, where and IndexUpdate.
#include <algorithm>
#include <string>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/shape_ops.h"
#include "ops/compose_util.h"
#include "ops/op_util.h"

namespace kiln {

namespace {

Tensor take_checked_indices(const char* op, const Tensor& indices) {
  if (!is_integer(indices.dtype()))
    throw TypeError(std::string(op) + ": indices must be an integer tensor, but received " + ops::describe(indices));
  return indices.dtype() == DType::int64 ? indices : cast(indices, DType::int64);
}

/// Negative indices count from the end of an axis of length n.
Tensor wrap_negative(const Tensor& indices, int64_t n) {
  return where(indices < 0.0, indices + static_cast<double>(n), indices);
}

Shape broadcast_batch(const char* op, const Shape& a, const Shape& b) {
  const int64_t r = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(static_cast<std::size_t>(r));
  for (int64_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.rank() ? 1 : a[i - (r - a.rank())];
    const int64_t db = i < r - b.rank() ? 1 : b[i - (r - b.rank())];
    if (da != db && da != 1 && db != 1)
      throw ShapeError(std::string(op) + ": the shapes " + a.to_string() + " and " + b.to_string() +
                       " (all axes but `axis`) do not broadcast");
    out[static_cast<std::size_t>(i)] = da == 1 ? db : da;
  }
  return Shape(out);
}

}  // namespace

Tensor take(const Tensor& x, const Tensor& indices, std::optional<int> axis) {
  Tensor idx = take_checked_indices("take", indices);
  if (!axis) return take(ravel(x), idx, 0);
  const int a = ops::normalize_axis("take", *axis, x.rank());
  return gather(x, wrap_negative(idx, x.shape()[a]), a);
}

Tensor take_along_axis(const Tensor& x, const Tensor& indices, std::optional<int> axis) {
  Tensor idx = take_checked_indices("take_along_axis", indices);
  if (!axis) {
    if (idx.rank() != 1)
      throw ValueError("take_along_axis: with axis=None, indices must be 1-D, but received " + ops::describe(indices));
    return take_along_axis(ravel(x), idx, 0);
  }
  if (idx.rank() != x.rank())
    throw ValueError("take_along_axis: indices and x must have the same number of axes, but received " +
                     ops::describe(indices) + " for " + ops::describe(x));
  const int a = ops::normalize_axis("take_along_axis", *axis, x.rank());
  const int64_t n = x.shape()[a], k = idx.shape()[a];
  Tensor xm = moveaxis(x, {a}, {-1}), im = moveaxis(idx, {a}, {-1});
  std::vector<int64_t> xb(xm.shape().dims().begin(), xm.shape().dims().end() - 1);
  std::vector<int64_t> ib(im.shape().dims().begin(), im.shape().dims().end() - 1);
  std::vector<int64_t> batch = broadcast_batch("take_along_axis", Shape(xb), Shape(ib)).dims();
  const int64_t rows = Shape(batch).num_elements();
  std::vector<int64_t> xs = batch, is = batch;
  xs.push_back(n);
  is.push_back(k);
  Tensor flat_x = reshape(broadcast_to(xm, Shape(xs)), Shape({rows * n}));
  Tensor flat_i = reshape(broadcast_to(wrap_negative(im, n), Shape(is)), Shape({rows, k}));
  std::vector<int64_t> offsets(static_cast<std::size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) offsets[static_cast<std::size_t>(r)] = r * n;
  Tensor at = flat_i + ops::index_tensor(offsets, Shape({rows, 1}), x.device());
  Tensor y = reshape(gather(flat_x, at, 0), Shape(is));
  return moveaxis(y, {-1}, {a});
}

Tensor select(const std::vector<Tensor>& condlist, const std::vector<Tensor>& choicelist, double default_value) {
  if (condlist.size() != choicelist.size())
    throw ValueError("select: condlist must have length equal to choicelist (" + std::to_string(condlist.size()) +
                     " vs " + std::to_string(choicelist.size()) + ")");
  if (condlist.empty()) throw ValueError("select: condlist must be non-empty");
  DType d = choicelist[0].dtype();
  for (const Tensor& c : choicelist) d = ops::keras_result_type(d, c.dtype());
  Tensor out = fill(Shape{}, default_value, d).to(choicelist[0].device());
  for (std::size_t i = condlist.size(); i-- > 0;) {
    if (condlist[i].dtype() != DType::bool_)
      throw TypeError("select: condlist entries must be bool tensors, but entry " + std::to_string(i) + " is " +
                      ops::describe(condlist[i]));
    const Tensor& c = choicelist[i];
    out = where(condlist[i], c.dtype() == d ? c : cast(c, d), out);
  }
  return out;
}

Tensor slice_update(const Tensor& inputs, const std::vector<int64_t>& start_indices, const Tensor& updates) {
  if (static_cast<int64_t>(start_indices.size()) != inputs.rank() || updates.rank() != inputs.rank())
    throw ValueError("slice_update: expected one start index per axis and updates of the inputs' rank, but received " +
                     std::to_string(start_indices.size()) + " start indices and " + ops::describe(updates) +
                     " for " + ops::describe(inputs));
  std::vector<Index> idx;
  for (int64_t i = 0; i < inputs.rank(); ++i) {
    const int64_t len = inputs.shape()[i], u = updates.shape()[i];
    if (u > len)
      throw ShapeError("slice_update: " + ops::describe(updates) + " does not fit in " + ops::describe(inputs));
    const int64_t s = std::clamp(start_indices[static_cast<std::size_t>(i)], int64_t{0}, len - u);
    idx.emplace_back(Slice(s, s + u));
  }
  return inputs.at(idx).set(updates.dtype() == inputs.dtype() ? updates : cast(updates, inputs.dtype()));
}

}  // namespace kiln
