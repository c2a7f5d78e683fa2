#include "kiln/losses/huber.h"

#include <nlohmann/json.hpp>

#include "kiln/ops/reduce_ops.h"
#include "loss_config.h"
#include "loss_utils.h"

namespace kiln::losses {

Tensor huber(const Tensor& y_true, const Tensor& y_pred, double delta) {
  Tensor yp = detail::as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(detail::like(y_true, yp), yp);
  Tensor error = p - t;
  Tensor abs_error = abs(error);
  Tensor quadratic = 0.5 * square(error);
  Tensor linear = delta * abs_error - 0.5 * delta * delta;
  return mean(where(abs_error <= delta, quadratic, linear), -1);
}

Huber::Huber(HuberOptions o) : Loss("huber_loss", LossOptions{o.reduction, o.name}), o_(std::move(o)) {}

Tensor Huber::call(const Tensor& y_true, const Tensor& y_pred) const { return huber(y_true, y_pred, o_.delta); }

Config Huber::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_LOSS(Huber, "Huber", "huber", "huber_loss")

}  // namespace kiln::losses
