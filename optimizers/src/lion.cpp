#include "kiln/optimizers/lion.h"

#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "optimizer_config.h"

namespace kiln::optimizers {

Lion::Lion(LionOptions o)
    : Optimizer("lion", o.learning_rate, o.base), beta_1_(o.beta_1), beta_2_(o.beta_2),
      o_(std::move(o)) {
  if (beta_1_ <= 0 || beta_1_ > 1)
    throw ValueError("Lion: argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates to "
                     "SignSGD. Received: beta_1=" +
                     std::to_string(beta_1_));
}

void Lion::build_slots(const std::vector<Variable>& vars) {
  for (const auto& v : vars) add_slot(v, "momentum");
}

void Lion::update_step(const Tensor& g, Variable& var, double lr, std::size_t index) {
  Variable& m = slot(index, 0);
  var.assign_sub(sign(m.read_value_untracked() * beta_1_ + g * (1.0 - beta_1_)) * lr);
  m.assign(m.read_value_untracked() * beta_2_ + g * (1.0 - beta_2_));
}

Config Lion::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_OPTIMIZER(Lion, "Lion", "lion")

}  // namespace kiln::optimizers
