#include "kiln/losses/binary_focal_crossentropy.h"

#include <nlohmann/json.hpp>

#include "kiln/losses/binary_crossentropy.h"
#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor binary_focal_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool apply_class_balancing, double alpha,
                                 double gamma, bool from_logits, double label_smoothing, int axis) {
  Tensor yp = detail::as_float(y_pred);
  Tensor yt = detail::like(y_true, yp);
  if (label_smoothing != 0.0) yt = yt * (1.0 - label_smoothing) + 0.5 * label_smoothing;
  if (from_logits) yp = sigmoid(yp);
  Tensor bce = binary_crossentropy_elementwise(yt, yp, /*from_logits=*/false);
  Tensor p_t = yt * yp + (1.0 - yt) * (1.0 - yp);
  Tensor focal_bce = pow(1.0 - p_t, gamma) * bce;
  if (apply_class_balancing) focal_bce = (yt * alpha + (1.0 - yt) * (1.0 - alpha)) * focal_bce;
  return mean(focal_bce, axis);
}

BinaryFocalCrossentropy::BinaryFocalCrossentropy(BinaryFocalCrossentropyOptions o)
    : Loss("binary_focal_crossentropy", LossOptions{o.reduction, o.name}), o_(std::move(o)) {}

Tensor BinaryFocalCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return binary_focal_crossentropy(t, p, o_.apply_class_balancing, o_.alpha, o_.gamma, o_.from_logits,
                                   o_.label_smoothing, o_.axis);
}

Config BinaryFocalCrossentropy::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_LOSS(BinaryFocalCrossentropy, "BinaryFocalCrossentropy", "binary_focal_crossentropy")

}  // namespace kiln::losses
