#pragma once
/// @class kiln::losses::SquaredHinge
/// SquaredHinge loss (keras.losses.SquaredHinge).
///
/// @code{.unparsed}
///   loss = mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1); labels in {0, 1} become {-1, 1}
/// @endcode
///
/// Shapes: y_true and y_pred (batch, d0, ..., dN) -> per-sample losses
/// (batch, d0, ..., dN-1); the reduction (default "sum_over_batch_size", the
/// mean) then gives a scalar. Example (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::SquaredHinge()({{0.f, 1.f}, {0.f, 0.f}}, {{0.6f, 0.4f}, {0.4f, 0.6f}})  // 1.86
/// @endcode
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Per-sample squared_hinge: y_true and y_pred (..., d) -> (...). Differentiable in y_pred.
Tensor squared_hinge(const Tensor& y_true, const Tensor& y_pred);

class SquaredHinge : public Loss {
 public:
  /// options.reduction defaults to "sum_over_batch_size", options.name to "squared_hinge".
  explicit SquaredHinge(LossOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "SquaredHinge"; }
};

}  // namespace kiln::losses
