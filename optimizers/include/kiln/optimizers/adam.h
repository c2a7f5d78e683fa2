#pragma once
/// @class kiln::optimizers::Adam
/// Adam (keras.optimizers.Adam), Keras's exact form (epsilon outside the root):
/// @code{.unparsed}
///   t = iterations + 1
///   alpha = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t)
///   m += (g - m) * (1 - beta_1)
///   v += (g^2 - v) * (1 - beta_2)
///   amsgrad: v_hat = max(v_hat, v), used in place of v
///   w -= alpha * m / (sqrt(v) + epsilon)
/// @endcode
/// Slots per variable, in order: "<var>_momentum", "<var>_velocity" (+ "<var>_velocity_hat").
///
/// @code{.unparsed}
///   kiln::optimizers::Adam opt({.learning_rate = 1e-3, .amsgrad = true});
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

/// Options of Adam (keras.optimizers.Adam's arguments and defaults).
struct AdamOptions {
  LearningRate learning_rate = 0.001;  ///< A float or a LearningRateSchedule.
  double beta_1 = 0.9;  ///< Decay rate of the first-moment estimates.
  double beta_2 = 0.999;  ///< Decay rate of the second-moment estimates.
  double epsilon = 1e-7;  ///< Small constant for numerical stability.
  bool amsgrad = false;  ///< Use the AMSGrad variant (the running maximum of v).
  OptimizerOptions base;  ///< The arguments every optimizer takes (weight_decay, clipnorm, use_ema, name, ...).
  KILN_FIELDS(AdamOptions, learning_rate, beta_1, beta_2, epsilon, amsgrad, base)
};

class Adam : public Optimizer {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = AdamOptions;
  /// Takes every setting from o (Keras's defaults); the default name is "adam".
  explicit Adam(AdamOptions o = {});
  std::string class_name() const override { return "Adam"; }
  Config get_config() const override;
  /// o.beta_1.
  double beta_1() const { return o_.beta_1; }
  /// o.beta_2.
  double beta_2() const { return o_.beta_2; }
  /// o.epsilon.
  double epsilon() const { return o_.epsilon; }
  /// o.amsgrad.
  bool amsgrad() const { return o_.amsgrad; }

 protected:
  /// For AdamW: a different default name.
  Adam(AdamOptions o, std::string default_name);
  void build_slots(const std::vector<Variable>& vars) override;
  void update_step(const Tensor& grad, Variable& var, double lr, std::size_t index) override;
  bool updates_with_step_size() const override { return true; }
  /// lr·√(1−β2ᵗ)/(1−β1ᵗ), in the variable's dtype as Keras computes it.
  double step_size_for(double lr, const Variable& var) const override;

 private:
  AdamOptions o_;
};

}  // namespace kiln::optimizers
