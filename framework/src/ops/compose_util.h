#pragma once
// Private helpers of the ops composed from other differentiable ops
// (kiln/ops/shape_ops.h, matrix_ops.h, creation_ops.h).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"
// Dtype promotion: keras_result_type and keras_promote_pair.
#include "ops/elementwise_promotion.h"

namespace kiln::ops {

/// An int64 tensor of `shape` holding `values`, on `device`.
Tensor index_tensor(const std::vector<int64_t>& values, const Shape& shape, Device device);
/// An int64 tensor of `shape` holding `values`, on `device`.
Tensor index_tensor(const std::vector<int64_t>& values, Device device);
/// The entries of the flattened x at `flat` (an int64 index per output entry), shaped `shape`;
/// index -1 reads `fill_value` instead. Differentiable in x.
Tensor gather_flat(const Tensor& x, const std::vector<int64_t>& flat, const Shape& shape, double fill_value = 0);
/// The permutation that moves axis `from` to the end (axes already normalised).
std::vector<int> axis_to_end(int64_t rank, int from);
/// The inverse of a permutation.
std::vector<int> inverse_perm(const std::vector<int>& perm);
/// x with size-1 axes prepended until it has `rank` axes.
Tensor prepend_axes(const Tensor& x, int64_t rank);

}  // namespace kiln::ops
