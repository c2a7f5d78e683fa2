#include "kiln/losses/cosine_similarity.h"

#include <nlohmann/json.hpp>

#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor l2_normalize(const Tensor& x, int axis) {
  // Keras: x * min(rsqrt(sum(x^2)), 1/eps). Written as rsqrt(max(sum, eps^2))
  // (the same value) so a zero vector has a finite gradient.
  Tensor square_sum = sum(square(x), axis, true);
  const double eps = detail::kEpsilon;
  return x * rsqrt(maximum(square_sum, scalar_like(eps * eps, square_sum)));
}

Tensor cosine_similarity(const Tensor& y_true, const Tensor& y_pred, int axis) {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  return -sum(l2_normalize(t, axis) * l2_normalize(p, axis), axis);
}

CosineSimilarity::CosineSimilarity(CosineSimilarityOptions o)
    : Loss("cosine_similarity", LossOptions{o.reduction, o.name}), o_(std::move(o)) {}

Tensor CosineSimilarity::call(const Tensor& y_true, const Tensor& y_pred) const {
  return cosine_similarity(y_true, y_pred, o_.axis);
}

Config CosineSimilarity::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_LOSS(CosineSimilarity, "CosineSimilarity", "cosine_similarity")

}  // namespace kiln::losses
