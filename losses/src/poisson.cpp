#include "kiln/losses/poisson.h"

#include <cmath>

#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor poisson(const Tensor& y_true, const Tensor& y_pred) {
  Tensor p = detail::as_float(y_pred);
  Tensor t = detail::like(y_true, p);
  return mean(p - t * log(p + detail::kEpsilon), -1);
}

Poisson::Poisson(LossOptions options) : Loss("poisson", std::move(options)) {}

// LossFunctionWrapper.call: squeeze or expand y_true/y_pred to the same rank first.
Tensor Poisson::call(const Tensor& y_true, const Tensor& y_pred) const {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return poisson(t, p);
}

KILN_REGISTER_LOSS(Poisson, "Poisson", "poisson")

}  // namespace kiln::losses
