#pragma once
/// @class kiln::optimizers::Ftrl
/// Ftrl, "Follow The Regularized Leader" (keras.optimizers.Ftrl), with
/// p = learning_rate_power, l1/l2 the regularization strengths:
/// @code{.unparsed}
///   l2'     = l2 + beta / (2 * lr)
///   g'      = g + 2 * l2_shrinkage * w
///   n_new   = n + g^2                                   (n starts at initial_accumulator_value)
///   z      += g' - (n_new^-p - n^-p) / lr * w
///   quad    = n_new^-p / lr + 2 * l2'
///   w       = (clip(z, -l1, l1) - z) / quad;  n = n_new
/// @endcode
/// Slots per variable: "<var>_accumulator", "<var>_linear".
///
/// @code{.unparsed}
///   kiln::optimizers::Ftrl opt({.learning_rate = 0.1, .l1_regularization_strength = 0.01});
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

/// Options of Ftrl (keras.optimizers.Ftrl's arguments and defaults).
struct FtrlOptions {
  LearningRate learning_rate = 0.001;  ///< A float or a LearningRateSchedule.
  /// <= 0; 0 gives a fixed learning rate.
  double learning_rate_power = -0.5;
  double initial_accumulator_value = 0.1;  ///< Starting value of the accumulators; non-negative.
  double l1_regularization_strength = 0.0;  ///< L1 strength; non-negative.
  double l2_regularization_strength = 0.0;  ///< L2 strength; non-negative.
  double l2_shrinkage_regularization_strength = 0.0;  ///< L2 shrinkage penalty (acts on the gradient); non-negative.
  double beta = 0.0;  ///< Keras's beta: adds beta / (2 * lr) to the L2 strength.
  OptimizerOptions base;  ///< The arguments every optimizer takes (weight_decay, clipnorm, use_ema, name, ...).
  KILN_FIELDS(FtrlOptions, learning_rate, learning_rate_power, initial_accumulator_value, l1_regularization_strength,
              l2_regularization_strength, l2_shrinkage_regularization_strength, beta, base)
};

class Ftrl : public Optimizer {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = FtrlOptions;
  /// Takes every setting from o (Keras's defaults); the default name is "ftrl". Throws ValueError for a
  /// learning_rate_power > 0 or a negative accumulator value or strength.
  explicit Ftrl(FtrlOptions o = {});
  std::string class_name() const override { return "Ftrl"; }
  Config get_config() const override;

 protected:
  void build_slots(const std::vector<Variable>& vars) override;
  void update_step(const Tensor& grad, Variable& var, double lr, std::size_t index) override;

 private:
  FtrlOptions o_;
};

}  // namespace kiln::optimizers
