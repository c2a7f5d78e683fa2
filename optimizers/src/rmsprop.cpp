#include "kiln/optimizers/rmsprop.h"

#include <nlohmann/json.hpp>

#include "kiln/ops/math_ops.h"
#include "kiln/ops/fused_updates.h"
#include "optimizer_config.h"

namespace kiln::optimizers {

RMSprop::RMSprop(RMSpropOptions o)
    : Optimizer("rmsprop", o.learning_rate, o.base),
      o_(std::move(o)) {}

void RMSprop::build_slots(const std::vector<Variable>& vars) {
  // Keras's build() makes each kind for every variable before the next kind
  // (three add_optimizer_variables calls), and files store them in that order.
  for (const auto& v : vars) add_slot(v, "velocity");
  if (o_.momentum > 0)
    for (const auto& v : vars) add_slot(v, "momentum");
  if (o_.centered)
    for (const auto& v : vars) add_slot(v, "average_gradient");
}

void RMSprop::update_step(const Tensor& g, Variable& var, double, std::size_t index) {
  std::size_t k = 0;
  Variable& velocity = slot(index, k++);
  Variable* momentum = o_.momentum > 0 ? &slot(index, k++) : nullptr;
  Variable* average_grad = o_.centered ? &slot(index, k++) : nullptr;
  fused::rmsprop_update(var, velocity, momentum, average_grad, g, step_size(index), o_.rho, o_.momentum, o_.epsilon);
}

Config RMSprop::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_OPTIMIZER(RMSprop, "RMSprop", "rmsprop")

}  // namespace kiln::optimizers
