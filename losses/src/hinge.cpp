#include "kiln/losses/hinge.h"

#include <cmath>

#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor convert_binary_labels_to_hinge(const Tensor& y_true) {
  // Labels carry no gradient; decide on the host, as Keras's ops.cond does.
  for (double v : y_true.to_vector<double>())
    if (v != 0.0 && v != 1.0) return y_true;
  return y_true * 2.0 - 1.0;
}

Tensor hinge(const Tensor& y_true, const Tensor& y_pred) {
  Tensor p = detail::as_float(y_pred);
  Tensor t = detail::like(y_true, p);
  Tensor s = convert_binary_labels_to_hinge(t);
  return mean(relu(1.0 - s * p), -1);
}

Hinge::Hinge(LossOptions options) : Loss("hinge", std::move(options)) {}

// LossFunctionWrapper.call: squeeze or expand y_true/y_pred to the same rank first.
Tensor Hinge::call(const Tensor& y_true, const Tensor& y_pred) const {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return hinge(t, p);
}

KILN_REGISTER_LOSS(Hinge, "Hinge", "hinge")

}  // namespace kiln::losses
