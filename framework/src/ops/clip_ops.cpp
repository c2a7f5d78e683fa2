// Norm clipping with TF's formulas (tensorflow/python/ops/clip_ops.py), built
// from differentiable ops so the gradients follow.
#include "kiln/ops/clip_ops.h"

#include <string>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "ops/op_util.h"
#include "core/op_log.h"
#include "ops/half_compute.h"

namespace kiln {

namespace {
void check_float(const char* op, const Tensor& t) {
  ops::check_concrete(op, t);
  if (!is_floating(t.dtype()))
    throw TypeError(std::string(op) + ": expected a floating tensor, but received " + ops::describe(t));
}
}  // namespace

Tensor clip_by_norm(const Tensor& t, double clip_norm, Axes axes) {
  KILN_LOG_OP(clip_by_norm, t, clip_norm, axes);
  KILN_HALF_IN_FLOAT32(clip_by_norm, t, clip_norm, axes);
  check_float("clip_by_norm", t);
  Tensor l2sum = sum(multiply(t, t), axes, /*keepdims=*/true);
  // The double where keeps the gradient finite for an all-zero t: sqrt is only
  // evaluated (and differentiated) where the sum is positive.
  Tensor pred = greater(l2sum, zeros_like(l2sum));
  Tensor l2sum_safe = where(pred, l2sum, ones_like(l2sum));
  Tensor l2norm = where(pred, sqrt(l2sum_safe), l2sum);
  Tensor c = scalar_like(clip_norm, t);
  return identity(divide(multiply(t, c), maximum(l2norm, c)));
}

Tensor global_norm(const std::vector<Tensor>& tensors) {
  KILN_LOG_OP(global_norm, tensors);
  KILN_HALF_IN_FLOAT32(global_norm, tensors);
  std::vector<Tensor> squared;
  DType dtype = DType::float32;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (!t.defined()) continue;
    check_float("global_norm", t);
    if (!squared.empty() && t.dtype() != dtype)
      throw TypeError("global_norm: all tensors must have the same dtype, but tensor " + std::to_string(i) +
                      " is " + dtype_name(t.dtype()) + " and the ones before it are " + dtype_name(dtype));
    dtype = t.dtype();
    // TF sums l2_loss(t) = sum(t²) / 2 and doubles the total; the same value up to rounding.
    squared.push_back(reshape(divide(sum(multiply(t, t)), scalar_like(2, t)), Shape{1}));
  }
  if (squared.empty()) throw ValueError("global_norm: expected at least one defined tensor, but received none");
  Tensor half = sum(squared.size() == 1 ? squared[0] : concat(squared, 0));
  return sqrt(multiply(half, scalar_like(2, half)));
}

ClippedByGlobalNorm clip_by_global_norm(const std::vector<Tensor>& tensors, double clip_norm,
                                        std::optional<Tensor> use_norm) {
  Tensor norm = use_norm ? *use_norm : global_norm(tensors);
  if (norm.size() != 1)
    throw ShapeError("clip_by_global_norm: use_norm must be a scalar, but received shape " + norm.shape().to_string());
  if (norm.rank() != 0) norm = reshape(norm, Shape{});
  if (!is_floating(norm.dtype())) norm = cast(norm, DType::float32);
  // clip_norm * min(1 / norm, 1 / clip_norm) == clip_norm / max(norm, clip_norm);
  // adding norm - norm turns the scale into nan when the norm is inf or nan.
  Tensor scale_for_finite =
      multiply(scalar_like(clip_norm, norm), minimum(1.0 / norm, scalar_like(1.0 / clip_norm, norm)));
  Tensor scale = add(scale_for_finite, subtract(norm, norm));
  ClippedByGlobalNorm out{{}, norm};
  for (const Tensor& t : tensors) {
    if (!t.defined()) {
      out.list.emplace_back();
      continue;
    }
    check_float("clip_by_global_norm", t);
    out.list.push_back(identity(multiply(t, t.dtype() == scale.dtype() ? scale : cast(scale, t.dtype()))));
  }
  return out;
}

}  // namespace kiln
