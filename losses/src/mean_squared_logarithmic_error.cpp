#include "kiln/losses/mean_squared_logarithmic_error.h"

#include <cmath>

#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor mean_squared_logarithmic_error(const Tensor& y_true, const Tensor& y_pred) {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  Tensor e = scalar_like(detail::kEpsilon, p);
  Tensor first = log(maximum(p, e) + 1.0);
  Tensor second = log(maximum(t, e) + 1.0);
  return mean(square(first - second), -1);
}

MeanSquaredLogarithmicError::MeanSquaredLogarithmicError(LossOptions options) : Loss("mean_squared_logarithmic_error", std::move(options)) {}

// LossFunctionWrapper.call: squeeze or expand y_true/y_pred to the same rank first.
Tensor MeanSquaredLogarithmicError::call(const Tensor& y_true, const Tensor& y_pred) const {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return mean_squared_logarithmic_error(t, p);
}

KILN_REGISTER_LOSS(MeanSquaredLogarithmicError, "MeanSquaredLogarithmicError", "mean_squared_logarithmic_error", "msle",
                   "MSLE")

}  // namespace kiln::losses
