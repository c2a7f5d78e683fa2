#pragma once
// Lion (keras.optimizers.Lion), a sign-based update:
//   w -= lr * sign(beta_1 * m + (1 - beta_1) * g)
//   m  = beta_2 * m + (1 - beta_2) * g
// Slots per variable: "<var>_momentum". beta_1 must be in (0, 1].
//
//   kiln::optimizers::Lion opt({.learning_rate = 1e-4});
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

struct LionOptions {
  LearningRate learning_rate = 0.001;
  double beta_1 = 0.9;
  double beta_2 = 0.99;
  OptimizerOptions base;
  KILN_FIELDS(LionOptions, learning_rate, beta_1, beta_2, base)
};

class Lion : public Optimizer {
 public:
  using Options = LionOptions;
  explicit Lion(LionOptions o = {});
  std::string class_name() const override { return "Lion"; }
  Config get_config() const override;

 protected:
  void build_slots(const std::vector<Variable>& vars) override;
  void update_step(const Tensor& grad, Variable& var, double lr, std::size_t index) override;

 private:
  LionOptions o_;
};

}  // namespace kiln::optimizers
