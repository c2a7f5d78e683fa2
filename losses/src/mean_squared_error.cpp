#include "kiln/losses/mean_squared_error.h"

#include <cmath>

#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor mean_squared_error(const Tensor& y_true, const Tensor& y_pred) {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return mean(square(t - p), -1);
}

MeanSquaredError::MeanSquaredError(LossOptions options) : Loss("mean_squared_error", std::move(options)) {}

// LossFunctionWrapper.call: squeeze or expand y_true/y_pred to the same rank first.
Tensor MeanSquaredError::call(const Tensor& y_true, const Tensor& y_pred) const {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return mean_squared_error(t, p);
}

KILN_REGISTER_LOSS(MeanSquaredError, "MeanSquaredError", "mean_squared_error", "mse", "MSE")

}  // namespace kiln::losses
