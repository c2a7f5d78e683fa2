#include "kiln/optimizers/adam.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/fused_updates.h"
#include "kiln/ops/math_ops.h"
#include "optimizer_config.h"

namespace kiln::optimizers {

Adam::Adam(AdamOptions o) : Adam(std::move(o), "adam") {}

Adam::Adam(AdamOptions o, std::string default_name)
    : Optimizer(std::move(default_name), o.learning_rate, o.base),
      o_(std::move(o)) {}

void Adam::build_slots(const std::vector<Variable>& vars) {
  // The order Keras 3's build() makes them in, which files keep: momentum and
  // velocity interleaved per variable (one add_optimizer_variables call), then
  // with amsgrad every variable's velocity_hat (a second call).
  for (const auto& v : vars) {
    add_slot(v, "momentum");
    add_slot(v, "velocity");
  }
  if (o_.amsgrad)
    for (const auto& v : vars) add_slot(v, "velocity_hat");
}

double Adam::step_size_for(double lr, const Variable& var) const {
  // Keras computes the bias corrections in the variable's dtype with beta rounded
  // to it. In float32, 1 - beta_2^t keeps only ~1e-5 of its value at beta_2 = 0.999,
  // so doing it in double moved every step by ~6e-6 of its size against Keras.
  if (var.dtype() == DType::float32) {
    const float t = static_cast<float>(local_step());
    const float b1 = std::pow(static_cast<float>(o_.beta_1), t), b2 = std::pow(static_cast<float>(o_.beta_2), t);
    return static_cast<double>(static_cast<float>(lr) * std::sqrt(1.0f - b2) / (1.0f - b1));
  }
  const double t = static_cast<double>(local_step());
  return lr * std::sqrt(1 - std::pow(o_.beta_2, t)) / (1 - std::pow(o_.beta_1, t));
}

void Adam::update_step(const Tensor& g, Variable& var, double, std::size_t index) {
  // One fused pass over var, m, v (and v_hat): Keras's formula, same order.
  fused::adam_update(var, slot(index, 0), slot(index, 1), o_.amsgrad ? &slot(index, 2) : nullptr, g, step_size(index),
                     o_.beta_1, o_.beta_2, o_.epsilon);
}

Config Adam::get_config() const { return detail::with_fields(base_config(), o_); }

KILN_REGISTER_OPTIMIZER(Adam, "Adam", "adam")

}  // namespace kiln::optimizers
