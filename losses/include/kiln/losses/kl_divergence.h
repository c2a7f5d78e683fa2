#pragma once
/// @class kiln::losses::KLDivergence
/// KLDivergence loss (keras.losses.KLDivergence).
///
/// @code{.unparsed}
///   loss = sum(y_true * log(y_true / y_pred), axis=-1), both clipped to [1e-7, 1]
/// @endcode
///
/// Shapes: y_true and y_pred (batch, d0, ..., dN) -> per-sample losses
/// (batch, d0, ..., dN-1); the reduction (default "sum_over_batch_size", the
/// mean) then gives a scalar. Example (Keras docstring):
/// @code{.unparsed}
///   kiln::losses::KLDivergence()({{0.f, 1.f}, {0.f, 0.f}}, {{0.6f, 0.4f}, {0.4f, 0.6f}})  // 0.458
/// @endcode
#include "kiln/training/loss.h"

namespace kiln::losses {

/// Per-sample kl_divergence: y_true and y_pred (..., d) -> (...). Differentiable in y_pred.
Tensor kl_divergence(const Tensor& y_true, const Tensor& y_pred);

class KLDivergence : public Loss {
 public:
  /// options.reduction defaults to "sum_over_batch_size", options.name to "kl_divergence".
  explicit KLDivergence(LossOptions options = {});
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override;
  std::string class_name() const override { return "KLDivergence"; }
};

}  // namespace kiln::losses
