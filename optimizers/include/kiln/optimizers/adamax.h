#pragma once
// Adamax (keras.optimizers.Adamax), Adam with the infinity norm:
//   t = iterations + 1
//   m += (g - m) * (1 - beta_1)
//   u  = max(beta_2 * u, |g|)
//   w -= lr * m / ((1 - beta_1^t) * (u + epsilon))
// Slots per variable: "<var>_momentum", "<var>_norm".
//
//   kiln::optimizers::Adamax opt({.learning_rate = 2e-3});
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

struct AdamaxOptions {
  LearningRate learning_rate = 0.001;
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  OptimizerOptions base;
  KILN_FIELDS(AdamaxOptions, learning_rate, beta_1, beta_2, epsilon, base)
};

class Adamax : public Optimizer {
 public:
  using Options = AdamaxOptions;
  explicit Adamax(AdamaxOptions o = {});
  std::string class_name() const override { return "Adamax"; }
  Config get_config() const override;

 protected:
  void build_slots(const std::vector<Variable>& vars) override;
  void update_step(const Tensor& grad, Variable& var, double lr, std::size_t index) override;

 private:
  AdamaxOptions o_;
};

}  // namespace kiln::optimizers
