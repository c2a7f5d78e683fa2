#pragma once
/// @class kiln::losses::MeanAbsolutePercentageError
/// MeanAbsolutePercentageError loss (keras.losses.MeanAbsolutePercentageError).
///
/// @code{.unparsed}
///   loss = 100 * mean(abs((y_true - y_pred) / maximum(abs(y_true), 1e-7)), axis=-1)
/// @endcode
///
/// Shapes: y_true and y_pred (batch, d0, ..., dN) -> per-sample losses
/// (batch, d0, ..., dN-1); the reduction (default "sum_over_batch_size", the
/// mean) then gives a scalar. Example (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::MeanAbsolutePercentageError()({{2.f, 1.f}, {2.f, 3.f}}, {{1.f, 1.f}, {1.f, 0.f}})  // 50
/// @endcode
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Per-sample mean_absolute_percentage_error: y_true and y_pred (..., d) -> (...). Differentiable in y_pred.
Tensor mean_absolute_percentage_error(const Tensor& y_true, const Tensor& y_pred);

class MeanAbsolutePercentageError : public Loss {
 public:
  /// options.reduction defaults to "sum_over_batch_size", options.name to "mean_absolute_percentage_error".
  explicit MeanAbsolutePercentageError(LossOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "MeanAbsolutePercentageError"; }
};

}  // namespace kiln::losses
