#pragma once
// RMSprop (keras.optimizers.RMSprop), epsilon inside the root:
//   v = rho * v + (1 - rho) * g^2
//   centered: a = rho * a + (1 - rho) * g;  denom = v - a^2 + epsilon
//   otherwise: denom = v + epsilon
//   inc = lr * g / sqrt(denom)
//   momentum > 0: m = momentum * m + inc;  w -= m      else  w -= inc
// Slots per variable: "<var>_velocity" (+ "<var>_momentum") (+ "<var>_average_gradient").
// Keras docstring: RMSprop(lr=0.1) on w = 10 with g = w gives w = 9.683772.
//
//   kiln::optimizers::RMSprop opt({.learning_rate = 0.01, .centered = true});
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

struct RMSpropOptions {
  LearningRate learning_rate = 0.001;
  double rho = 0.9;
  double momentum = 0.0;
  double epsilon = 1e-7;
  bool centered = false;
  OptimizerOptions base;
  KILN_FIELDS(RMSpropOptions, learning_rate, rho, momentum, epsilon, centered, base)
};

class RMSprop : public Optimizer {
 public:
  using Options = RMSpropOptions;
  explicit RMSprop(RMSpropOptions o = {});
  std::string class_name() const override { return "RMSprop"; }
  Config get_config() const override;

 protected:
  void build_slots(const std::vector<Variable>& vars) override;
  void update_step(const Tensor& grad, Variable& var, double lr, std::size_t index) override;
  bool updates_with_step_size() const override { return true; }

 private:
  RMSpropOptions o_;
};

}  // namespace kiln::optimizers
