#include "kiln/optimizers/ftrl.h"

#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "optimizer_config.h"

namespace kiln::optimizers {

namespace {
void check_sign(const char* arg, double v, bool want_nonpositive) {
  if (want_nonpositive ? v > 0 : v < 0)
    throw ValueError(std::string("Ftrl: `") + arg + "` needs to be " +
                     (want_nonpositive ? "negative or zero" : "positive or zero") + ". Received: " + arg + "=" +
                     std::to_string(v));
}
}  // namespace

Ftrl::Ftrl(FtrlOptions o) : Optimizer("ftrl", o.learning_rate, o.base), o_(std::move(o)) {
  check_sign("initial_accumulator_value", o_.initial_accumulator_value, false);
  check_sign("learning_rate_power", o_.learning_rate_power, true);
  check_sign("l1_regularization_strength", o_.l1_regularization_strength, false);
  check_sign("l2_regularization_strength", o_.l2_regularization_strength, false);
  check_sign("l2_shrinkage_regularization_strength", o_.l2_shrinkage_regularization_strength, false);
}

void Ftrl::build_slots(const std::vector<Variable>& vars) {
  for (const auto& v : vars) {
    add_slot(v, "accumulator", o_.initial_accumulator_value);
    add_slot(v, "linear");
  }
}

void Ftrl::update_step(const Tensor& g, Variable& var, double lr, std::size_t index) {
  Variable& accum = slot(index, 0);
  Variable& linear = slot(index, 1);
  const double p = o_.learning_rate_power;
  const double l1 = o_.l1_regularization_strength;
  const double l2 = o_.l2_regularization_strength + o_.beta / (2.0 * lr);

  Tensor w = var.read_value_untracked();
  Tensor n = accum.read_value_untracked();
  Tensor grad_to_use = g + w * (2 * o_.l2_shrinkage_regularization_strength);
  Tensor new_accum = n + square(g);
  linear.assign_add(grad_to_use - (pow(new_accum, -p) - pow(n, -p)) / lr * w);
  Tensor quadratic = pow(new_accum, -p) / lr + 2 * l2;
  Tensor z = linear.read_value_untracked();
  var.assign((clip(z, -l1, l1) - z) / quadratic);
  accum.assign(new_accum);
}

Config Ftrl::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_OPTIMIZER(Ftrl, "Ftrl", "ftrl")

}  // namespace kiln::optimizers
