#pragma once
/// @class kiln::losses::MeanSquaredError
/// MeanSquaredError loss (keras.losses.MeanSquaredError).
///
/// @code{.unparsed}
///   loss = mean(square(y_true - y_pred), axis=-1)
/// @endcode
///
/// Shapes: y_true and y_pred (batch, d0, ..., dN) -> per-sample losses
/// (batch, d0, ..., dN-1); the reduction (default "sum_over_batch_size", the
/// mean) then gives a scalar. Example (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::MeanSquaredError()({{0.f, 1.f}, {0.f, 0.f}}, {{1.f, 1.f}, {1.f, 0.f}})  // 0.5
/// @endcode
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Per-sample mean_squared_error: y_true and y_pred (..., d) -> (...). Differentiable in y_pred.
Tensor mean_squared_error(const Tensor& y_true, const Tensor& y_pred);

class MeanSquaredError : public Loss {
 public:
  /// options.reduction defaults to "sum_over_batch_size", options.name to "mean_squared_error".
  explicit MeanSquaredError(LossOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "MeanSquaredError"; }
};

}  // namespace kiln::losses
