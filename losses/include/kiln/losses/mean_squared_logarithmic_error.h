#pragma once
/// @class kiln::losses::MeanSquaredLogarithmicError
/// MeanSquaredLogarithmicError loss (keras.losses.MeanSquaredLogarithmicError).
///
/// @code{.unparsed}
///   loss = mean(square(log(max(y_pred, 1e-7) + 1) - log(max(y_true, 1e-7) + 1)), axis=-1)
/// @endcode
///
/// Shapes: y_true and y_pred (batch, d0, ..., dN) -> per-sample losses
/// (batch, d0, ..., dN-1); the reduction (default "sum_over_batch_size", the
/// mean) then gives a scalar. Example (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::MeanSquaredLogarithmicError()({{0.f, 1.f}, {0.f, 0.f}}, {{1.f, 1.f}, {1.f, 0.f}})  // 0.240
/// @endcode
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Per-sample mean_squared_logarithmic_error: y_true and y_pred (..., d) -> (...). Differentiable in y_pred.
Tensor mean_squared_logarithmic_error(const Tensor& y_true, const Tensor& y_pred);

class MeanSquaredLogarithmicError : public Loss {
 public:
  /// options.reduction defaults to "sum_over_batch_size", options.name to "mean_squared_logarithmic_error".
  explicit MeanSquaredLogarithmicError(LossOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "MeanSquaredLogarithmicError"; }
};

}  // namespace kiln::losses
