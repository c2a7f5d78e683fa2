#include "kiln/optimizers/lion.h"

#include <nlohmann/json.hpp>

#include "core/number_text.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "optimizer_config.h"

namespace kiln::optimizers {

Lion::Lion(LionOptions o)
    : Optimizer("lion", o.learning_rate, o.base),
      o_(std::move(o)) {
  if (o_.beta_1 <= 0 || o_.beta_1 > 1)
    throw ValueError("Lion: argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates to "
                     "SignSGD. Received: beta_1=" +
                     kiln::detail::number_text(o_.beta_1));
}

void Lion::build_slots(const std::vector<Variable>& vars) {
  for (const auto& v : vars) add_slot(v, "momentum");
}

void Lion::update_step(const Tensor& g, Variable& var, double lr, std::size_t index) {
  Variable& m = slot(index, 0);
  var.assign_sub(sign(m.read_value_untracked() * o_.beta_1 + g * (1.0 - o_.beta_1)) * lr);
  m.assign(m.read_value_untracked() * o_.beta_2 + g * (1.0 - o_.beta_2));
}

Config Lion::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_OPTIMIZER(Lion, "Lion", "lion")

}  // namespace kiln::optimizers
