#pragma once
/// @class kiln::optimizers::Nadam
/// Nadam (keras.optimizers.Nadam): Adam with Nesterov momentum (Dozat 2015).
/// @code{.unparsed}
///   t = iterations + 1;  u(s) = beta_1 * (1 - 0.5 * 0.96^s)
///   once per apply:  u_product *= u(t)          (u_product starts at 1)
///   m += (g - m) * (1 - beta_1);  v += (g^2 - v) * (1 - beta_2)
///   m_hat = u(t+1) * m / (1 - u_product * u(t+1)) + (1 - u(t)) * g / (1 - u_product)
///   v_hat = v / (1 - beta_2^t)
///   w -= lr * m_hat / (sqrt(v_hat) + epsilon)
/// @endcode
/// Slots per variable: "<var>_momentum", "<var>_velocity"; then one scalar
/// "u_product" (dtype of the first variable) after all of them, as Keras tracks it.
///
/// @code{.unparsed}
///   kiln::optimizers::Nadam opt({.learning_rate = 2e-3});
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

/// Options of Nadam (keras.optimizers.Nadam's arguments and defaults).
struct NadamOptions {
  LearningRate learning_rate = 0.001;  ///< A float or a LearningRateSchedule.
  double beta_1 = 0.9;  ///< Decay rate of the first-moment estimates.
  double beta_2 = 0.999;  ///< Decay rate of the second-moment estimates.
  double epsilon = 1e-7;  ///< Small constant for numerical stability.
  OptimizerOptions base;  ///< The arguments every optimizer takes (weight_decay, clipnorm, use_ema, name, ...).
  KILN_FIELDS(NadamOptions, learning_rate, beta_1, beta_2, epsilon, base)
};

class Nadam : public Optimizer {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = NadamOptions;
  /// Takes every setting from o (Keras's defaults); the default name is "nadam".
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
