#include "kiln/losses/squared_hinge.h"

#include <cmath>

#include "kiln/losses/hinge.h"
#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor squared_hinge(const Tensor& y_true, const Tensor& y_pred) {
  Tensor p = detail::as_float(y_pred);
  Tensor t = detail::like(y_true, p);
  Tensor s = convert_binary_labels_to_hinge(t);
  return mean(square(relu(1.0 - s * p)), -1);
}

SquaredHinge::SquaredHinge(LossOptions options) : Loss("squared_hinge", std::move(options)) {}

// LossFunctionWrapper.call: squeeze or expand y_true/y_pred to the same rank first.
Tensor SquaredHinge::call(const Tensor& y_true, const Tensor& y_pred) const {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return squared_hinge(t, p);
}

KILN_REGISTER_LOSS(SquaredHinge, "SquaredHinge", "squared_hinge")

}  // namespace kiln::losses
