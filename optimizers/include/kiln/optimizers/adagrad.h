#pragma once
/// @class kiln::optimizers::Adagrad
/// Adagrad (keras.optimizers.Adagrad):
/// @code{.unparsed}
///   acc += g^2                       (acc starts at initial_accumulator_value)
///   w   -= lr * g / sqrt(acc + epsilon)
/// @endcode
/// Slots per variable: "<var>_accumulator".
///
/// @code{.unparsed}
///   kiln::optimizers::Adagrad opt({.learning_rate = 0.1});
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers {

/// Options of Adagrad (keras.optimizers.Adagrad's arguments and defaults).
struct AdagradOptions {
  LearningRate learning_rate = 0.001;  ///< A float or a LearningRateSchedule.
  double initial_accumulator_value = 0.1;  ///< Starting value of the accumulators; non-negative.
  double epsilon = 1e-7;  ///< Small constant for numerical stability.
  OptimizerOptions base;  ///< The arguments every optimizer takes (weight_decay, clipnorm, use_ema, name, ...).
  KILN_FIELDS(AdagradOptions, learning_rate, initial_accumulator_value, epsilon, base)
};

class Adagrad : public Optimizer {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = AdagradOptions;
  /// Takes every setting from o (Keras's defaults); the default name is "adagrad". Throws ValueError for a
  /// negative initial_accumulator_value.
  explicit Adagrad(AdagradOptions o = {});
  std::string class_name() const override { return "Adagrad"; }
  Config get_config() const override;

 protected:
  void build_slots(const std::vector<Variable>& vars) override;
  void update_step(const Tensor& grad, Variable& var, double lr, std::size_t index) override;

 private:
  AdagradOptions o_;
};

}  // namespace kiln::optimizers
