#pragma once
/// @class kiln::losses::Poisson
/// Poisson loss (keras.losses.Poisson).
///
/// @code{.unparsed}
///   loss = mean(y_pred - y_true * log(y_pred + 1e-7), axis=-1)
/// @endcode
///
/// Shapes: y_true and y_pred (batch, d0, ..., dN) -> per-sample losses
/// (batch, d0, ..., dN-1); the reduction (default "sum_over_batch_size", the
/// mean) then gives a scalar. Example (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::Poisson()({{0.f, 1.f}, {0.f, 0.f}}, {{1.f, 1.f}, {0.f, 0.f}})  // 0.5
/// @endcode
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Per-sample poisson: y_true and y_pred (..., d) -> (...). Differentiable in y_pred.
Tensor poisson(const Tensor& y_true, const Tensor& y_pred);

class Poisson : public Loss {
 public:
  /// options.reduction defaults to "sum_over_batch_size", options.name to "poisson".
  explicit Poisson(LossOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "Poisson"; }
};

}  // namespace kiln::losses
