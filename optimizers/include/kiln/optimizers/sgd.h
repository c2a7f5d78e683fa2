#pragma once
// SGD: gradient descent with optional (Nesterov) momentum (keras.optimizers.SGD).
//   momentum == 0:  w -= lr * g
//   momentum  > 0:  m = momentum * m - lr * g;  w += m
//   nesterov:       m = momentum * m - lr * g;  w += momentum * m - lr * g
// Slots (only when momentum != 0): "<var>_momentum".
//
//   kiln::optimizers::SGD opt({.learning_rate = 0.1, .momentum = 0.9, .nesterov = true});
//   opt.apply(grads, vars);
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

struct SGDOptions {
  LearningRate learning_rate = 0.01;
  /// In [0, 1]; 0 is vanilla gradient descent.
  double momentum = 0.0;
  bool nesterov = false;
  OptimizerOptions base;
  KILN_FIELDS(SGDOptions, learning_rate, momentum, nesterov, base)
};

class SGD : public Optimizer {
 public:
  using Options = SGDOptions;
  explicit SGD(SGDOptions o = {});
  std::string class_name() const override { return "SGD"; }
  Config get_config() const override;
  double momentum() const { return momentum_; }
  bool nesterov() const { return nesterov_; }

 protected:
  void build_slots(const std::vector<Variable>& vars) override;
  void update_step(const Tensor& grad, Variable& var, double lr, std::size_t index) override;
  bool updates_with_step_size() const override { return true; }

 private:
  double momentum_;
  bool nesterov_;
  SGDOptions o_;  // as given: get_config writes them
};

}  // namespace kiln::optimizers
