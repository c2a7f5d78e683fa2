#pragma once
// Nadam (keras.optimizers.Nadam): Adam with Nesterov momentum (Dozat 2015).
//   t = iterations + 1;  u(s) = beta_1 * (1 - 0.5 * 0.96^s)
//   once per apply:  u_product *= u(t)          (u_product starts at 1)
//   m += (g - m) * (1 - beta_1);  v += (g^2 - v) * (1 - beta_2)
//   m_hat = u(t+1) * m / (1 - u_product * u(t+1)) + (1 - u(t)) * g / (1 - u_product)
//   v_hat = v / (1 - beta_2^t)
//   w -= lr * m_hat / (sqrt(v_hat) + epsilon)
// Slots per variable: "<var>_momentum", "<var>_velocity"; then one scalar
// "u_product" (dtype of the first variable) after all of them, as Keras tracks it.
//
//   kiln::optimizers::Nadam opt({.learning_rate = 2e-3});
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

struct NadamOptions {
  LearningRate learning_rate = 0.001;
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  OptimizerOptions base;
  KILN_FIELDS(NadamOptions, learning_rate, beta_1, beta_2, epsilon, base)
};

class Nadam : public Optimizer {
 public:
  using Options = NadamOptions;
  explicit Nadam(NadamOptions o = {});
  std::string class_name() const override { return "Nadam"; }
  Config get_config() const override;

 protected:
  void build_slots(const std::vector<Variable>& vars) override;
  void prepare_update_steps(double lr) override;
  void update_step(const Tensor& grad, Variable& var, double lr, std::size_t index) override;

 private:
  Variable u_product_;
  NadamOptions o_;
};

}  // namespace kiln::optimizers
