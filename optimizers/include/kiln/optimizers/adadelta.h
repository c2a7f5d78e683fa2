#pragma once
/// @class kiln::optimizers::Adadelta
/// Adadelta (keras.optimizers.Adadelta), with rms(x) = sqrt(x + epsilon):
/// @code{.unparsed}
///   Eg  = rho * Eg + (1 - rho) * g^2
///   d   = -rms(Edx) * g / rms(Eg)
///   Edx = rho * Edx + (1 - rho) * d^2
///   w  += lr * d
/// @endcode
/// Slots per variable: "<var>_accumulated_grad", "<var>_accumulated_delta_var".
///
/// @code{.unparsed}
///   kiln::optimizers::Adadelta opt({.learning_rate = 1.0});
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

/// Options of Adadelta (keras.optimizers.Adadelta's arguments and defaults).
struct AdadeltaOptions {
  LearningRate learning_rate = 0.001;  ///< A float or a LearningRateSchedule.
  double rho = 0.95;  ///< Decay rate of the running averages.
  double epsilon = 1e-7;  ///< Small constant for numerical stability.
  OptimizerOptions base;  ///< The arguments every optimizer takes (weight_decay, clipnorm, use_ema, name, ...).
  KILN_FIELDS(AdadeltaOptions, learning_rate, rho, epsilon, base)
};

class Adadelta : public Optimizer {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = AdadeltaOptions;
  /// Takes every setting from o (Keras's defaults); the default name is "adadelta".
  explicit Adadelta(AdadeltaOptions o = {});
  std::string class_name() const override { return "Adadelta"; }
  Config get_config() const override;

 protected:
  void build_slots(const std::vector<Variable>& vars) override;
  void update_step(const Tensor& grad, Variable& var, double lr, std::size_t index) override;

 private:
  AdadeltaOptions o_;
};

}  // namespace kiln::optimizers
