#pragma once
/// @class kiln::optimizers::RMSprop
/// RMSprop (keras.optimizers.RMSprop), epsilon inside the root:
/// @code{.unparsed}
///   v = rho * v + (1 - rho) * g^2
///   centered: a = rho * a + (1 - rho) * g;  denom = v - a^2 + epsilon
///   otherwise: denom = v + epsilon
///   inc = lr * g / sqrt(denom)
///   momentum > 0: m = momentum * m + inc;  w -= m      else  w -= inc
/// @endcode
/// Slots per variable: "<var>_velocity" (+ "<var>_momentum") (+ "<var>_average_gradient").
/// Keras docstring: RMSprop(lr=0.1) on w = 10 with g = w gives w = 9.683772.
///
/// @code{.unparsed}
///   kiln::optimizers::RMSprop opt({.learning_rate = 0.01, .centered = true});
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

/// Options of RMSprop (keras.optimizers.RMSprop's arguments and defaults).
struct RMSpropOptions {
  LearningRate learning_rate = 0.001;  ///< A float or a LearningRateSchedule.
  double rho = 0.9;  ///< Decay rate of the squared-gradient average.
  double momentum = 0.0;  ///< Momentum of the update; 0 means none.
  double epsilon = 1e-7;  ///< Small constant for numerical stability.
  bool centered = false;  ///< Normalise by the gradient's estimated variance (v - a^2) rather than v.
  OptimizerOptions base;  ///< The arguments every optimizer takes (weight_decay, clipnorm, use_ema, name, ...).
  KILN_FIELDS(RMSpropOptions, learning_rate, rho, momentum, epsilon, centered, base)
};

class RMSprop : public Optimizer {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = RMSpropOptions;
  /// Takes every setting from o (Keras's defaults); the default name is "rmsprop".
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
