#pragma once
/// @class kiln::losses::MeanAbsoluteError
/// MeanAbsoluteError loss (keras.losses.MeanAbsoluteError).
///
/// @code{.unparsed}
///   loss = mean(abs(y_true - y_pred), axis=-1)
/// @endcode
///
/// Shapes: y_true and y_pred (batch, d0, ..., dN) -> per-sample losses
/// (batch, d0, ..., dN-1); the reduction (default "sum_over_batch_size", the
/// mean) then gives a scalar. Example (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::MeanAbsoluteError()({{0.f, 1.f}, {0.f, 0.f}}, {{1.f, 1.f}, {1.f, 0.f}})  // 0.5
/// @endcode
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Per-sample mean_absolute_error: y_true and y_pred (..., d) -> (...). Differentiable in y_pred.
Tensor mean_absolute_error(const Tensor& y_true, const Tensor& y_pred);

class MeanAbsoluteError : public Loss {
 public:
  /// options.reduction defaults to "sum_over_batch_size", options.name to "mean_absolute_error".
  explicit MeanAbsoluteError(LossOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "MeanAbsoluteError"; }
};

}  // namespace kiln::losses
