#include "kiln/losses/log_cosh.h"

#include <cmath>

#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor log_cosh(const Tensor& y_true, const Tensor& y_pred) {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  // log(cosh(x)) = x + log(1 + exp(-2x)) - log(2): no overflow for large |x|.
  Tensor x = p - t;
  return mean(x + softplus(x * -2.0) - std::log(2.0), -1);
}

LogCosh::LogCosh(LossOptions options) : Loss("log_cosh", std::move(options)) {}

// LossFunctionWrapper.call: squeeze or expand y_true/y_pred to the same rank first.
Tensor LogCosh::call(const Tensor& y_true, const Tensor& y_pred) const {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return log_cosh(t, p);
}

KILN_REGISTER_LOSS(LogCosh, "LogCosh", "log_cosh", "logcosh")

}  // namespace kiln::losses
