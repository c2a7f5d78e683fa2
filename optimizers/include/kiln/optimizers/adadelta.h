#pragma once
// Adadelta (keras.optimizers.Adadelta), with rms(x) = sqrt(x + epsilon):
//   Eg  = rho * Eg + (1 - rho) * g^2
//   d   = -rms(Edx) * g / rms(Eg)
//   Edx = rho * Edx + (1 - rho) * d^2
//   w  += lr * d
// Slots per variable: "<var>_accumulated_grad", "<var>_accumulated_delta_var".
//
//   kiln::optimizers::Adadelta opt({.learning_rate = 1.0});
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

struct AdadeltaOptions {
  LearningRate learning_rate = 0.001;
  double rho = 0.95;
  double epsilon = 1e-7;
  OptimizerOptions base;
  KILN_FIELDS(AdadeltaOptions, learning_rate, rho, epsilon, base)
};

class Adadelta : public Optimizer {
 public:
  using Options = AdadeltaOptions;
  explicit Adadelta(AdadeltaOptions o = {});
  std::string class_name() const override { return "Adadelta"; }
  Config get_config() const override;

 protected:
  void build_slots(const std::vector<Variable>& vars) override;
  void update_step(const Tensor& grad, Variable& var, double lr, std::size_t index) override;

 private:
  AdadeltaOptions o_;
};

}  // namespace kiln::optimizers
