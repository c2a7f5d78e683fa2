#include "kiln/optimizers/rmsprop.h"

#include <nlohmann/json.hpp>

#include "kiln/ops/math_ops.h"
#include "optimizer_config.h"

namespace kiln::optimizers {

RMSprop::RMSprop(RMSpropOptions o)
    : Optimizer("rmsprop", o.learning_rate, o.base),
      rho_(o.rho),
      momentum_(o.momentum),
      epsilon_(o.epsilon),
      centered_(o.centered),
      o_(std::move(o)) {}

void RMSprop::build_slots(const std::vector<Variable>& vars) {
  for (const auto& v : vars) {
    add_slot(v, "velocity");
    if (momentum_ > 0) add_slot(v, "momentum");
    if (centered_) add_slot(v, "average_gradient");
  }
}

void RMSprop::update_step(const Tensor& g, Variable& var, double lr, std::size_t index) {
  std::size_t k = 0;
  Variable& velocity = slot(index, k++);
  Variable* momentum = momentum_ > 0 ? &slot(index, k++) : nullptr;
  Variable* average_grad = centered_ ? &slot(index, k++) : nullptr;

  velocity.assign(velocity.read_value_untracked() * rho_ + square(g) * (1 - rho_));
  Tensor denominator;
  if (centered_) {
    average_grad->assign(average_grad->read_value_untracked() * rho_ + g * (1 - rho_));
    denominator = velocity.read_value_untracked() - square(average_grad->read_value_untracked()) + epsilon_;
  } else {
    denominator = velocity.read_value_untracked() + epsilon_;
  }
  Tensor increment = g * lr / sqrt(denominator);
  if (momentum) {
    momentum->assign(momentum->read_value_untracked() * momentum_ + increment);
    var.assign_sub(momentum->read_value_untracked());
  } else {
    var.assign_sub(increment);
  }
}

Config RMSprop::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_OPTIMIZER(RMSprop, "RMSprop", "rmsprop")

}  // namespace kiln::optimizers
