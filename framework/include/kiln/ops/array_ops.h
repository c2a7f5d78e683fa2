#pragma once
// Shape and indexing ops. Reshape shares storage; the rest copy.
#include <optional>
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
/// Repeats the tensor `reps[i]` times along axis i (keras.ops.tile): as NumPy, the shorter of
/// the shape and `reps` is padded with leading 1s, so tile(x of (2, 3), {2, 1, 3}) is (2, 2, 9).
Tensor tile(const Tensor& x, const std::vector<int64_t>& reps);
/// Element-wise select with broadcasting: cond ? x : y.
Tensor where(const Tensor& cond, const Tensor& x, const Tensor& y);
/// One-hot encode integer indices into a new last axis of size depth.
Tensor one_hot(const Tensor& indices, int64_t depth, DType dtype = DType::float32);
Tensor cast(const Tensor& x, DType dtype);  ///< The values converted to `dtype` (keras.ops.cast).
/// keras.ops.saturate_cast: x clipped to the range `dtype` can hold (as x's dtype
/// represents it, nudged inwards where rounding would leave it), then cast.
Tensor saturate_cast(const Tensor& x, DType dtype);

// ---- index tensors (ops read the indices on the host, so a trace of them
// falls back to eager; out-of-range indices are errors, never dropped) ----

/// keras.ops.nonzero: the indices of the non-zero entries, one int64 tensor per axis, in row-major order.
std::vector<Tensor> nonzero(const Tensor& x);
/// NumPy's x[mask]: `mask` is a bool tensor whose shape equals x's leading axes; the selected
/// entries stack along a new first axis in row-major order. Differentiable in x.
Tensor boolean_mask(const Tensor& x, const Tensor& mask);
/// keras.ops.scatter: zeros of `shape` with values[i] added at indices[i] (indices (N, k), values
/// (N,) + shape[k:]); duplicate indices sum. Differentiable in values.
Tensor scatter(const Tensor& indices, const Tensor& values, const Shape& shape);
/// keras.ops.scatter_update: inputs with inputs[indices[i]] = updates[i] (indices (N, k), updates
/// (N,) + inputs.shape[k:]); of duplicate indices the last update wins. Differentiable in both.
Tensor scatter_update(const Tensor& inputs, const Tensor& indices, const Tensor& updates);

/// keras.ops.unique's options (jnp.unique's, which Keras's JAX backend calls).
struct UniqueOptions {
  bool sorted = true;  ///< Accepted as Keras does; the values come sorted either way, as on JAX.
  std::optional<int> axis;  ///< Unique slices along this axis; none: over the flattened values.
  std::optional<int64_t> size;  ///< Pad (with fill_value) or cut the result to this length.
  std::optional<double> fill_value;  ///< Padding; none: the smallest unique value, as JAX.
};
/// keras.ops.unique's results: the unique values, the index of each one's first
/// occurrence, for every input entry (or slice) the index of its unique value
/// (x's shape with no axis), and the counts. Indices and counts are int32 as on Keras's JAX backend.
struct UniqueResult {
  Tensor values;  ///< The unique values (or slices along the axis), sorted.
  Tensor indices;  ///< Where each unique value first occurs (return_index).
  Tensor inverse;  ///< Each entry's (or slice's) index into values (return_inverse).
  Tensor counts;  ///< How often each unique value occurs (return_counts).
};
Tensor unique(const Tensor& x);  ///< keras.ops.unique(x): the sorted unique values.
UniqueResult unique(const Tensor& x, const UniqueOptions& options);  ///< keras.ops.unique with every return_*.

/// JAX's x.at[index]: a functional update of the entries `index` selects, returning a
/// new tensor (x is unchanged). `index` is a bool mask (x[mask]), an integer tensor
/// (rows along axis 0) or NumPy subscripts; the value broadcasts to x[index]'s shape:
///   y = y.at(y == -1).set(0);      x = x.at({Slice(1, 3), 0}).add(x[{Slice(1, 3), 0}]);
class IndexUpdate {
 public:
  IndexUpdate(Tensor x, Tensor index);  ///< x.at(mask) or x.at(indices).
  IndexUpdate(Tensor x, std::vector<Index> index);  ///< x.at({Slice(...), ...}).
  Tensor get() const;  ///< x[index].
  Tensor set(const Tensor& value) const;  ///< x with x[index] = value (the last of duplicate indices wins).
  Tensor set(double value) const;  ///< set() with the number in x's dtype.
  Tensor add(const Tensor& value) const;  ///< x with x[index] += value (duplicate indices accumulate).
  Tensor add(double value) const;  ///< add() with the number in x's dtype.

 private:
  Tensor positions() const;  // the flat positions x[index] reads, in x[index]'s shape
  Tensor x_, index_;
  std::vector<Index> subscripts_;
};

/// Identity in the forward pass; blocks gradients.
Tensor stop_gradient(const Tensor& x);
/// A new tensor handle (new id) over the same values, differentiable.
Tensor identity(const Tensor& x);
/// keras.ops.copy: the values in fresh storage, differentiable (the gradient passes through).
Tensor copy(const Tensor& x);

}  // namespace kiln
