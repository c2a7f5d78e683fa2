#pragma once
// Reductions over any set of axes, with keepdims, named as in keras.ops:
// sum, mean, max, min, prod, argmax, argmin, all, any, amax, amin (not reduce_*).
//   kiln::sum(x)               // everything -> scalar
//   kiln::mean(x, {0, 1}, true)
#include <optional>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// Axes to reduce over; default-constructed means "all axes". Negative axes count from the end.
struct Axes {
  std::optional<std::vector<int>> axes;  ///< The axes; nullopt for all of them.
  Axes() = default;
  /// One axis.
  Axes(int a) : axes(std::vector<int>{a}) {}
  /// Several axes: {0, 2}.
  Axes(std::initializer_list<int> a) : axes(std::vector<int>(a)) {}
  /// Several axes.
  Axes(std::vector<int> a) : axes(std::move(a)) {}
};

Tensor sum(const Tensor& x, Axes axes = {}, bool keepdims = false);  ///< Sum over `axes` (keras.ops.sum).
/// Integer and bool inputs give float32; the mean over no elements is nan.
Tensor mean(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor max(const Tensor& x, Axes axes = {}, bool keepdims = false);  ///< Maximum over `axes`.
Tensor min(const Tensor& x, Axes axes = {}, bool keepdims = false);  ///< Minimum over `axes`.
/// Product over `axes`; its gradient (the product of the other entries) is exact through zeros.
Tensor prod(const Tensor& x, Axes axes = {}, bool keepdims = false);
/// Population variance (divides by N), like keras.ops.var.
Tensor var(const Tensor& x, Axes axes = {}, bool keepdims = false);
Tensor std(const Tensor& x, Axes axes = {}, bool keepdims = false);  ///< Population standard deviation (divides by N).
/// log(sum(exp(x))) computed stably.
Tensor logsumexp(const Tensor& x, Axes axes = {}, bool keepdims = false);
/// Index of the largest value along one axis (int64; first one on ties).
Tensor argmax(const Tensor& x, int axis = -1);
Tensor argmin(const Tensor& x, int axis = -1);  ///< Index of the smallest value along `axis`.
/// keras.ops.all: whether every entry over `axes` is non-zero (NaN counts as true); a bool tensor.
Tensor all(const Tensor& x, Axes axes = {}, bool keepdims = false);
/// keras.ops.any: whether some entry over `axes` is non-zero (NaN counts as true); a bool tensor.
Tensor any(const Tensor& x, Axes axes = {}, bool keepdims = false);
/// keras.ops.amax: the maximum over `axes` (max under NumPy's name); bool gives bool.
Tensor amax(const Tensor& x, Axes axes = {}, bool keepdims = false);
/// keras.ops.amin: the minimum over `axes` (min under NumPy's name); bool gives bool.
Tensor amin(const Tensor& x, Axes axes = {}, bool keepdims = false);

}  // namespace kiln
