#pragma once
// Shape and indexing ops. Reshape shares storage; the rest copy.
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// Reshape without copying; one dimension may be -1 and is inferred.
/// Error: "Input to reshape is a tensor with 30 values, but the requested shape has 14".
Tensor reshape(const Tensor& x, const Shape& shape);
/// Permute axes; an empty perm reverses them.
Tensor transpose(const Tensor& x, std::vector<int> perm = {});
Tensor expand_dims(const Tensor& x, int axis);  ///< Inserts a size-1 axis at `axis` (keras.ops.expand_dims).
/// Remove size-1 axes (all of them when axes is empty).
Tensor squeeze(const Tensor& x, std::vector<int> axes = {});
/// Keep axis 0 and flatten the rest: (N, ...) -> (N, prod(...)).
Tensor flatten(const Tensor& x);
/// NumPy basic slicing; same as x[idx].
Tensor slice(const Tensor& x, const std::vector<Index>& idx);
/// Take entries of `params` along `axis` at integer `indices`; output shape
/// params.shape[:axis] + indices.shape + params.shape[axis+1:].
Tensor gather(const Tensor& params, const Tensor& indices, int axis = 0);
/// Joins tensors along an existing axis (keras.ops.concatenate).
Tensor concat(const std::vector<Tensor>& xs, int axis = 0);
Tensor stack(const std::vector<Tensor>& xs, int axis = 0);  ///< Joins tensors along a new axis (keras.ops.stack).
/// Split into `num` equal parts along axis.
std::vector<Tensor> split(const Tensor& x, int64_t num, int axis = 0);
/// Split into parts of the given sizes along axis.
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int axis = 0);
Tensor broadcast_to(const Tensor& x, const Shape& shape);  ///< Broadcasts x to `shape` (NumPy rules).
/// Repeat the tensor `reps[i]` times along axis i.
Tensor tile(const Tensor& x, const std::vector<int64_t>& reps);
/// Element-wise select with broadcasting: cond ? x : y.
Tensor where(const Tensor& cond, const Tensor& x, const Tensor& y);
/// One-hot encode integer indices into a new last axis of size depth.
Tensor one_hot(const Tensor& indices, int64_t depth, DType dtype = DType::float32);
Tensor cast(const Tensor& x, DType dtype);  ///< The values converted to `dtype` (keras.ops.cast).
/// Identity in the forward pass; blocks gradients.
Tensor stop_gradient(const Tensor& x);
/// A new tensor handle (new id) over the same values, differentiable.
Tensor identity(const Tensor& x);

}  // namespace kiln
