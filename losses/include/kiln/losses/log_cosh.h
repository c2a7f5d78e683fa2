#pragma once
/// @class kiln::losses::LogCosh
/// LogCosh loss (keras.losses.LogCosh).
///
/// @code{.unparsed}
///   loss = mean(log(cosh(y_pred - y_true)), axis=-1), computed as x + softplus(-2x) - log(2)
/// @endcode
///
/// Shapes: y_true and y_pred (batch, d0, ..., dN) -> per-sample losses
/// (batch, d0, ..., dN-1); the reduction (default "sum_over_batch_size", the
/// mean) then gives a scalar. Example (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::LogCosh()({{0.f, 1.f}, {0.f, 0.f}}, {{1.f, 1.f}, {0.f, 0.f}})  // 0.108
/// @endcode
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Per-sample log_cosh: y_true and y_pred (..., d) -> (...). Differentiable in y_pred.
Tensor log_cosh(const Tensor& y_true, const Tensor& y_pred);

class LogCosh : public Loss {
 public:
  /// options.reduction defaults to "sum_over_batch_size", options.name to "log_cosh".
  explicit LogCosh(LossOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "LogCosh"; }
};

}  // namespace kiln::losses
