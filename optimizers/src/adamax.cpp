#include "kiln/optimizers/adamax.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/math_ops.h"
#include "optimizer_config.h"

namespace kiln::optimizers {

Adamax::Adamax(AdamaxOptions o)
    : Optimizer("adamax", o.learning_rate, o.base),
      o_(std::move(o)) {}

void Adamax::build_slots(const std::vector<Variable>& vars) {
  for (const auto& v : vars) {
    add_slot(v, "momentum");
    add_slot(v, "norm");
  }
}

void Adamax::update_step(const Tensor& g, Variable& var, double lr, std::size_t index) {
  const double beta_1_power = std::pow(o_.beta_1, static_cast<double>(local_step()));
  Variable& m = slot(index, 0);
  Variable& u = slot(index, 1);
  m.assign_add((g - m.read_value_untracked()) * (1 - o_.beta_1));
  u.assign(maximum(u.read_value_untracked() * o_.beta_2, abs(g)));
  var.assign_sub(m.read_value_untracked() * lr / ((u.read_value_untracked() + o_.epsilon) * (1 - beta_1_power)));
}

Config Adamax::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_OPTIMIZER(Adamax, "Adamax", "adamax")

}  // namespace kiln::optimizers
