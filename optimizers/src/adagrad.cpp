#include "kiln/optimizers/adagrad.h"

#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "optimizer_config.h"

namespace kiln::optimizers {

Adagrad::Adagrad(AdagradOptions o)
    : Optimizer("adagrad", o.learning_rate, o.base),
      o_(std::move(o)) {
  if (o_.initial_accumulator_value < 0)
    throw ValueError("Adagrad: `initial_accumulator_value` must be non-negative. Received: " +
                     std::to_string(o_.initial_accumulator_value));
}

void Adagrad::build_slots(const std::vector<Variable>& vars) {
  for (const auto& v : vars) add_slot(v, "accumulator", o_.initial_accumulator_value);
}

void Adagrad::update_step(const Tensor& g, Variable& var, double lr, std::size_t index) {
  Variable& acc = slot(index, 0);
  acc.assign_add(square(g));
  var.assign_sub(g * lr / sqrt(acc.read_value_untracked() + o_.epsilon));
}

Config Adagrad::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_OPTIMIZER(Adagrad, "Adagrad", "adagrad")

}  // namespace kiln::optimizers
