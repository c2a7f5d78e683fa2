#pragma once
// Private helpers shared by the loss implementations.
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/core/tensor.h"

namespace kiln::losses::detail {

/// keras.backend.epsilon(): probabilities are clipped to [eps, 1 - eps].
inline constexpr double kEpsilon = 1e-7;

/// y_pred as a float tensor (integers become float32).
inline Tensor as_float(const Tensor& y_pred) {
  return is_floating(y_pred.dtype()) ? y_pred : cast(y_pred, DType::float32);
}
/// y_true in y_pred's dtype (Keras casts targets to the prediction dtype).
inline Tensor like(const Tensor& y_true, const Tensor& y_pred) {
  return y_true.dtype() == y_pred.dtype() ? y_true : cast(y_true, y_pred.dtype());
}

}  // namespace kiln::losses::detail
