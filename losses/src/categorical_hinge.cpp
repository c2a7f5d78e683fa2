#include "kiln/losses/categorical_hinge.h"

#include <cmath>

#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor categorical_hinge(const Tensor& y_true, const Tensor& y_pred) {
  Tensor p = detail::as_float(y_pred);
  Tensor t = detail::like(y_true, p);
  Tensor pos = sum(t * p, -1);
  Tensor neg = max((1.0 - t) * p, -1);
  return relu(neg - pos + 1.0);
}

CategoricalHinge::CategoricalHinge(LossOptions options) : Loss("categorical_hinge", std::move(options)) {}

// LossFunctionWrapper.call: squeeze or expand y_true/y_pred to the same rank first.
Tensor CategoricalHinge::call(const Tensor& y_true, const Tensor& y_pred) const {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return categorical_hinge(t, p);
}

KILN_REGISTER_LOSS(CategoricalHinge, "CategoricalHinge", "categorical_hinge")

}  // namespace kiln::losses
