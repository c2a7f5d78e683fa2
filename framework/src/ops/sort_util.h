#pragma once
// Private helpers of the sorting, cumulative and statistics ops: moving one
// axis to the end and back, host-side stable row orders, and gathers of
// per-row positions that stay differentiable in the values.
#include <cstdint>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln::ops {

/// x with `axis` (normalised) moved to the end.
Tensor axis_to_last(const Tensor& x, int axis);
/// The inverse of axis_to_last: the last axis of x goes back to position `axis`.
Tensor last_to_axis(const Tensor& x, int axis);
/// x[..., start:stop, ...] along `axis` (normalised); differentiable.
Tensor slice_axis(const Tensor& x, int axis, int64_t start, int64_t stop);
/// For each row of x's last axis, the stable order of its entries (positions
/// within the row, rows one after another). Ascending puts NaN last, descending
/// puts NaN first, as JAX's sort and top_k do; -0.0 equals 0.0.
std::vector<int64_t> sorted_row_order(const Tensor& x, bool descending);
/// From x (..., n), the entries at `pos` (m positions per row, rows one after
/// another): a (..., m) tensor, differentiable in x.
Tensor take_rows(const Tensor& x, const std::vector<int64_t>& pos, int64_t m);
/// The number of rows of x's last axis (the product of the other axes).
int64_t row_count(const Tensor& x);
/// A host vector of int32 values as a tensor of `shape`.
Tensor int32_tensor_of(const std::vector<int64_t>& v, const Shape& shape);

}  // namespace kiln::ops
