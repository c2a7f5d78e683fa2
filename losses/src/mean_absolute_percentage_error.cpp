#include "kiln/losses/mean_absolute_percentage_error.h"

#include <cmath>

#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor mean_absolute_percentage_error(const Tensor& y_true, const Tensor& y_pred) {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  Tensor d = abs((t - p) / maximum(abs(t), scalar_like(detail::kEpsilon, p)));
  return 100.0 * mean(d, -1);
}

MeanAbsolutePercentageError::MeanAbsolutePercentageError(LossOptions options) : Loss("mean_absolute_percentage_error", std::move(options)) {}

// LossFunctionWrapper.call: squeeze or expand y_true/y_pred to the same rank first.
Tensor MeanAbsolutePercentageError::call(const Tensor& y_true, const Tensor& y_pred) const {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return mean_absolute_percentage_error(t, p);
}

KILN_REGISTER_LOSS(MeanAbsolutePercentageError, "MeanAbsolutePercentageError", "mean_absolute_percentage_error", "mape",
                   "MAPE")

}  // namespace kiln::losses
