#pragma once
/// @class kiln::optimizers::Lion
/// Lion (keras.optimizers.Lion), a sign-based update:
/// @code{.unparsed}
///   w -= lr * sign(beta_1 * m + (1 - beta_1) * g)
///   m  = beta_2 * m + (1 - beta_2) * g
/// @endcode
/// Slots per variable: "<var>_momentum". beta_1 must be in (0, 1].
///
/// @code{.unparsed}
///   kiln::optimizers::Lion opt({.learning_rate = 1e-4});
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

/// Options of Lion (keras.optimizers.Lion's arguments and defaults).
struct LionOptions {
  LearningRate learning_rate = 0.001;  ///< A float or a LearningRateSchedule.
  double beta_1 = 0.9;  ///< Interpolation factor of the update's sign; in (0, 1].
  double beta_2 = 0.99;  ///< Decay rate of the momentum.
  OptimizerOptions base;  ///< The arguments every optimizer takes (weight_decay, clipnorm, use_ema, name, ...).
  KILN_FIELDS(LionOptions, learning_rate, beta_1, beta_2, base)
};

class Lion : public Optimizer {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = LionOptions;
  /// Takes every setting from o (Keras's defaults); the default name is "lion". Throws ValueError
  /// unless 0 < beta_1 <= 1.
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
