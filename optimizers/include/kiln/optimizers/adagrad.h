#pragma once
// Adagrad (keras.optimizers.Adagrad):
//   acc += g^2                       (acc starts at initial_accumulator_value)
//   w   -= lr * g / sqrt(acc + epsilon)
// Slots per variable: "<var>_accumulator".
//
//   kiln::optimizers::Adagrad opt({.learning_rate = 0.1});
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

struct AdagradOptions {
  LearningRate learning_rate = 0.001;
  double initial_accumulator_value = 0.1;
  double epsilon = 1e-7;
  OptimizerOptions base;
  KILN_FIELDS(AdagradOptions, learning_rate, initial_accumulator_value, epsilon, base)
};

class Adagrad : public Optimizer {
 public:
  using Options = AdagradOptions;
  explicit Adagrad(AdagradOptions o = {});
  std::string class_name() const override { return "Adagrad"; }
  Config get_config() const override;

 protected:
  void build_slots(const std::vector<Variable>& vars) override;
  void update_step(const Tensor& grad, Variable& var, double lr, std::size_t index) override;

 private:
  AdagradOptions o_;
};

}  // namespace kiln::optimizers
