#include "kiln/losses/categorical_crossentropy.h"

#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor categorical_crossentropy(const Tensor& y_true, const Tensor& y_pred, bool from_logits, double label_smoothing,
                                int axis) {
  Tensor yp = detail::as_float(y_pred);
  Tensor yt = detail::like(y_true, yp);
  if (!(yt.shape() == yp.shape()))
    throw ShapeError("categorical_crossentropy: y_true and y_pred must have the same shape, but received " +
                     yt.shape().to_string() + " and " + yp.shape().to_string() +
                     " (integer labels need sparse_categorical_crossentropy)");
  if (label_smoothing != 0.0) {
    const double num_classes = static_cast<double>(yt.shape()[-1]);
    yt = yt * (1.0 - label_smoothing) + label_smoothing / num_classes;
  }
  return ::kiln::categorical_crossentropy(yt, yp, from_logits, axis);
}

CategoricalCrossentropy::CategoricalCrossentropy(CategoricalCrossentropyOptions o)
    : Loss("categorical_crossentropy", LossOptions{o.reduction, o.name}), o_(std::move(o)) {}

Tensor CategoricalCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return categorical_crossentropy(t, p, o_.from_logits, o_.label_smoothing, o_.axis);
}

Config CategoricalCrossentropy::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_LOSS(CategoricalCrossentropy, "CategoricalCrossentropy", "categorical_crossentropy", "cce", "CCE")

}  // namespace kiln::losses
