#pragma once
/// @class kiln::optimizers::AdamW
/// AdamW (keras.optimizers.AdamW): Adam plus decoupled weight decay, applied by
/// the base optimizer before each step: w -= w * weight_decay * lr; then the
/// Adam update (see adam.h). weight_decay defaults to 0.004 and is required.
///
/// @code{.unparsed}
///   kiln::optimizers::AdamW opt({.learning_rate = 1e-3, .weight_decay = 0.01});
/// @endcode
#include "kiln/core/fields.h"
#include "kiln/optimizers/adam.h"

namespace kiln::optimizers {

/// Options of AdamW (keras.optimizers.AdamW's arguments and defaults).
struct AdamWOptions {
  LearningRate learning_rate = 0.001;  ///< A float or a LearningRateSchedule.
  double weight_decay = 0.004;  ///< Decoupled weight decay: w -= w * weight_decay * lr before each step.
  double beta_1 = 0.9;  ///< Decay rate of the first-moment estimates.
  double beta_2 = 0.999;  ///< Decay rate of the second-moment estimates.
  double epsilon = 1e-7;  ///< Small constant for numerical stability.
  bool amsgrad = false;  ///< Use the AMSGrad variant (the running maximum of v).
  /// base.weight_decay is ignored: the field above wins.
  OptimizerOptions base;
  KILN_FIELDS(AdamWOptions, learning_rate, weight_decay, beta_1, beta_2, epsilon, amsgrad, base)
};

class AdamW : public Adam {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = AdamWOptions;
  /// Takes every setting from o (Keras's defaults); the default name is "adamw".
  explicit AdamW(AdamWOptions o = {});
  std::string class_name() const override { return "AdamW"; }
};

}  // namespace kiln::optimizers
