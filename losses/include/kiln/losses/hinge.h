#pragma once
/// @class kiln::losses::Hinge
/// Hinge loss (keras.losses.Hinge).
///
/// @code{.unparsed}
///   loss = mean(maximum(1 - y_true * y_pred, 0), axis=-1); labels in {0, 1} become {-1, 1}
/// @endcode
///
/// Shapes: y_true and y_pred (batch, d0, ..., dN) -> per-sample losses
/// (batch, d0, ..., dN-1); the reduction (default "sum_over_batch_size", the
/// mean) then gives a scalar. Example (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::Hinge()({{0.f, 1.f}, {0.f, 0.f}}, {{0.6f, 0.4f}, {0.4f, 0.6f}})  // 1.3
/// @endcode
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Per-sample hinge: y_true and y_pred (..., d) -> (...). Differentiable in y_pred.
Tensor hinge(const Tensor& y_true, const Tensor& y_pred);

/// Keras's convert_binary_labels_to_hinge: if every label is 0 or 1, returns 2 * y - 1;
/// otherwise the labels unchanged (already -1/1).
Tensor convert_binary_labels_to_hinge(const Tensor& y_true);

class Hinge : public Loss {
 public:
  /// options.reduction defaults to "sum_over_batch_size", options.name to "hinge".
  explicit Hinge(LossOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "Hinge"; }
};

}  // namespace kiln::losses
