#include "kiln/losses/hinge.h"

#include <cmath>

#include "kiln/graph/control_flow.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor convert_binary_labels_to_hinge(const Tensor& y_true) {
  // Keras's ops.cond: 0/1 labels become -1/1, others pass unchanged. A
  // kiln::cond, so a traced step makes the choice on each batch's labels.
  const Tensor binary =
      cast(logical_or(equal(y_true, scalar_like(0.0, y_true)), equal(y_true, scalar_like(1.0, y_true))), DType::float32);
  const Tensor is_binary = y_true.size() == 0 ? Tensor(true) : equal(min(binary), scalar_like(1.0, binary));
  return cond(is_binary, [&] { return y_true * 2.0 - 1.0; }, [&] { return y_true; });
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
