#pragma once
/// @class kiln::optimizers::SGD
/// SGD: gradient descent with optional (Nesterov) momentum (keras.optimizers.SGD).
/// @code{.unparsed}
///   momentum == 0:  w -= lr * g
///   momentum  > 0:  m = momentum * m - lr * g;  w += m
///   nesterov:       m = momentum * m - lr * g;  w += momentum * m - lr * g
/// @endcode
/// Slots (only when momentum != 0): "<var>_momentum".
///
/// @code{.unparsed}
///   kiln::optimizers::SGD opt({.learning_rate = 0.1, .momentum = 0.9, .nesterov = true});
///   opt.apply(grads, vars);
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

/// Options of SGD (keras.optimizers.SGD's arguments and defaults).
struct SGDOptions {
  LearningRate learning_rate = 0.01;  ///< A float or a LearningRateSchedule.
  /// In [0, 1]; 0 is vanilla gradient descent.
  double momentum = 0.0;
  bool nesterov = false;  ///< Use Nesterov momentum.
  OptimizerOptions base;  ///< The arguments every optimizer takes (weight_decay, clipnorm, use_ema, name, ...).
  KILN_FIELDS(SGDOptions, learning_rate, momentum, nesterov, base)
};

class SGD : public Optimizer {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = SGDOptions;
  /// Takes every setting from o (Keras's defaults); the default name is "SGD". Throws ValueError for a
  /// momentum outside [0, 1].
  explicit SGD(SGDOptions o = {});
  std::string class_name() const override { return "SGD"; }
  Config get_config() const override;
  /// o.momentum.
  double momentum() const { return momentum_; }
  /// o.nesterov.
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
