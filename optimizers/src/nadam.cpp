#include "kiln/optimizers/nadam.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/math_ops.h"
#include "optimizer_config.h"

namespace kiln::optimizers {

Nadam::Nadam(NadamOptions o)
    : Optimizer("nadam", o.learning_rate, o.base),
      o_(std::move(o)) {}

void Nadam::build_slots(const std::vector<Variable>& vars) {
  for (const auto& v : vars) {
    add_slot(v, "momentum");
    add_slot(v, "velocity");
  }
  // Keras tracks u_product after the slots, in the first variable's dtype.
  const DType dtype = vars.empty() ? DType::float32 : vars.front().dtype();
  u_product_ = add_optimizer_variable("u_product", ones({}, dtype));
}

void Nadam::prepare_update_steps(double) {
  const double t = static_cast<double>(local_step());
  u_product_.assign(u_product_.read_value_untracked() * (o_.beta_1 * (1.0 - 0.5 * std::pow(0.96, t))));
}

void Nadam::update_step(const Tensor& g, Variable& var, double lr, std::size_t index) {
  const double t = static_cast<double>(local_step());
  const double u_t = o_.beta_1 * (1.0 - 0.5 * std::pow(0.96, t));
  const double u_t_1 = o_.beta_1 * (1.0 - 0.5 * std::pow(0.96, t + 1));
  const double u_product_t = u_product_.read_value_untracked().item<double>();
  const double u_product_t_1 = u_product_t * u_t_1;
  const double beta_2_power = std::pow(o_.beta_2, t);

  Variable& m = slot(index, 0);
  Variable& v = slot(index, 1);
  m.assign_add((g - m.read_value_untracked()) * (1 - o_.beta_1));
  v.assign_add((square(g) - v.read_value_untracked()) * (1 - o_.beta_2));
  Tensor m_hat = m.read_value_untracked() * u_t_1 / (1 - u_product_t_1) + g * (1 - u_t) / (1 - u_product_t);
  Tensor v_hat = v.read_value_untracked() / (1 - beta_2_power);
  var.assign_sub(m_hat * lr / (sqrt(v_hat) + o_.epsilon));
}

Config Nadam::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_OPTIMIZER(Nadam, "Nadam", "nadam")

}  // namespace kiln::optimizers
