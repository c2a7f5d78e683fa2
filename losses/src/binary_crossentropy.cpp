#include "kiln/losses/binary_crossentropy.h"

#include <nlohmann/json.hpp>

#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor binary_crossentropy_elementwise(const Tensor& target, const Tensor& output, bool from_logits) {
  return ::kiln::binary_crossentropy(target, output, from_logits);
}

Tensor binary_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits, double label_smoothing,
                           int axis) {
  Tensor yp = detail::as_float(y_pred);
  Tensor yt = detail::like(y_true, yp);
  if (label_smoothing != 0.0) yt = yt * (1.0 - label_smoothing) + 0.5 * label_smoothing;
  return mean(binary_crossentropy_elementwise(yt, yp, from_logits), axis);
}

BinaryCrossentropy::BinaryCrossentropy(BinaryCrossentropyOptions o)
    : Loss("binary_crossentropy", LossOptions{o.reduction, o.name}), o_(std::move(o)) {}

Tensor BinaryCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return binary_crossentropy(t, p, o_.from_logits, o_.label_smoothing, o_.axis);
}

Config BinaryCrossentropy::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_LOSS(BinaryCrossentropy, "BinaryCrossentropy", "binary_crossentropy", "bce", "BCE")

}  // namespace kiln::losses
