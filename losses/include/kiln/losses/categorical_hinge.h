#pragma once
/// @class kiln::losses::CategoricalHinge
/// CategoricalHinge loss (keras.losses.CategoricalHinge).
///
/// @code{.unparsed}
///   loss = maximum(neg - pos + 1, 0) with pos = sum(y_true * y_pred, -1), neg = max((1 - y_true) * y_pred, -1)
/// @endcode
///
/// Shapes: y_true and y_pred (batch, d0, ..., dN) -> per-sample losses
/// (batch, d0, ..., dN-1); the reduction (default "sum_over_batch_size", the
/// mean) then gives a scalar. Example (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::CategoricalHinge()({{0.f, 1.f}, {0.f, 0.f}}, {{0.6f, 0.4f}, {0.4f, 0.6f}})  // 1.4
/// @endcode
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Per-sample categorical_hinge: y_true and y_pred (..., d) -> (...). Differentiable in y_pred.
Tensor categorical_hinge(const Tensor& y_true, const Tensor& y_pred);

class CategoricalHinge : public Loss {
 public:
  /// options.reduction defaults to "sum_over_batch_size", options.name to "categorical_hinge".
  explicit CategoricalHinge(LossOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "CategoricalHinge"; }
};

}  // namespace kiln::losses
