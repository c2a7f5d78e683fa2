#pragma once
/// @class kiln::optimizers::Adamax
/// Adamax (keras.optimizers.Adamax), Adam with the infinity norm:
/// @code{.unparsed}
///   t = iterations + 1
///   m += (g - m) * (1 - beta_1)
///   u  = max(beta_2 * u, |g|)
///   w -= lr * m / ((1 - beta_1^t) * (u + epsilon))
/// @endcode
/// Slots per variable: "<var>_momentum", "<var>_norm".
///
/// @code{.unparsed}
///   kiln::optimizers::Adamax opt({.learning_rate = 2e-3});
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

/// Options of Adamax (keras.optimizers.Adamax's arguments and defaults).
struct AdamaxOptions {
  LearningRate learning_rate = 0.001;  ///< A float or a LearningRateSchedule.
  double beta_1 = 0.9;  ///< Decay rate of the first-moment estimates.
  double beta_2 = 0.999;  ///< Decay rate of the exponentially weighted infinity norm.
  double epsilon = 1e-7;  ///< Small constant for numerical stability.
  OptimizerOptions base;  ///< The arguments every optimizer takes (weight_decay, clipnorm, use_ema, name, ...).
  KILN_FIELDS(AdamaxOptions, learning_rate, beta_1, beta_2, epsilon, base)
};

class Adamax : public Optimizer {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = AdamaxOptions;
  /// Takes every setting from o (Keras's defaults); the default name is "adamax".
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
