#include "kiln/losses/categorical_focal_crossentropy.h"

#include <nlohmann/json.hpp>

#include "kiln/ops/nn_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor categorical_focal_crossentropy(const Tensor& y_true, const Tensor& y_pred, double alpha, double gamma,
                                      bool from_logits, double label_smoothing, int axis) {
  Tensor yp = detail::as_float(y_pred);
  Tensor yt = detail::like(y_true, yp);
  if (label_smoothing != 0.0) {
    const double num_classes = static_cast<double>(yt.shape()[-1]);
    yt = yt * (1.0 - label_smoothing) + label_smoothing / num_classes;
  }
  if (from_logits) yp = softmax(yp, axis);
  // Renormalise so each sample's probabilities add up to 1, then clip.
  Tensor output = yp / sum(yp, axis, true);
  output = clip(output, detail::kEpsilon, 1.0 - detail::kEpsilon);
  Tensor cce = -yt * log(output);
  Tensor weighting = pow(1.0 - output, gamma) * alpha;
  return sum(weighting * cce, axis);
}

CategoricalFocalCrossentropy::CategoricalFocalCrossentropy(CategoricalFocalCrossentropyOptions o)
    : Loss("categorical_focal_crossentropy", LossOptions{o.reduction, o.name}), o_(std::move(o)) {}

Tensor CategoricalFocalCrossentropy::call(const Tensor& y_true, const Tensor& y_pred) const {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return categorical_focal_crossentropy(t, p, o_.alpha, o_.gamma, o_.from_logits, o_.label_smoothing, o_.axis);
}

Config CategoricalFocalCrossentropy::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_LOSS(CategoricalFocalCrossentropy, "CategoricalFocalCrossentropy", "categorical_focal_crossentropy")

}  // namespace kiln::losses
