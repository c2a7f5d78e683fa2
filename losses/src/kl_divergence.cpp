#include "kiln/losses/kl_divergence.h"

#include <cmath>

#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor kl_divergence(const Tensor& y_true, const Tensor& y_pred) {
  Tensor p = detail::as_float(y_pred);
  Tensor t = detail::like(y_true, p);
  Tensor tc = clip(t, detail::kEpsilon, 1.0);
  Tensor pc = clip(p, detail::kEpsilon, 1.0);
  return sum(tc * log(tc / pc), -1);
}

KLDivergence::KLDivergence(LossOptions options) : Loss("kl_divergence", std::move(options)) {}

// LossFunctionWrapper.call: squeeze or expand y_true/y_pred to the same rank first.
Tensor KLDivergence::call(const Tensor& y_true, const Tensor& y_pred) const {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return kl_divergence(t, p);
}

KILN_REGISTER_LOSS(KLDivergence, "KLDivergence", "kl_divergence", "kld", "KLD", "kullback_leibler_divergence")

}  // namespace kiln::losses
