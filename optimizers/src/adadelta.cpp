#include "kiln/optimizers/adadelta.h"

#include <nlohmann/json.hpp>

#include "kiln/ops/math_ops.h"
#include "optimizer_config.h"

namespace kiln::optimizers {

Adadelta::Adadelta(AdadeltaOptions o)
    : Optimizer("adadelta", o.learning_rate, o.base),
      o_(std::move(o)) {}

void Adadelta::build_slots(const std::vector<Variable>& vars) {
  for (const auto& v : vars) {
    add_slot(v, "accumulated_grad");
    add_slot(v, "accumulated_delta_var");
  }
}

void Adadelta::update_step(const Tensor& g, Variable& var, double lr, std::size_t index) {
  Variable& acc_grad = slot(index, 0);
  Variable& acc_delta = slot(index, 1);
  auto rms = [this](const Tensor& x) { return sqrt(x + o_.epsilon); };
  acc_grad.assign(acc_grad.read_value_untracked() * o_.rho + square(g) * (1 - o_.rho));
  Tensor delta = -(rms(acc_delta.read_value_untracked()) * g / rms(acc_grad.read_value_untracked()));
  acc_delta.assign(acc_delta.read_value_untracked() * o_.rho + square(delta) * (1 - o_.rho));
  var.assign_add(delta * lr);
}

Config Adadelta::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_OPTIMIZER(Adadelta, "Adadelta", "adadelta")

}  // namespace kiln::optimizers
