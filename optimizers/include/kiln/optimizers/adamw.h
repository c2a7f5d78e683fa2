#pragma once
// AdamW (keras.optimizers.AdamW): Adam plus decoupled weight decay, applied by
// the base optimizer before each step: w -= w * weight_decay * lr; then the
// Adam update (see adam.h). weight_decay defaults to 0.004 and is required.
//
//   kiln::optimizers::AdamW opt({.learning_rate = 1e-3, .weight_decay = 0.01});
#include "kiln/core/fields.h"
#include "kiln/optimizers/adam.h"

namespace kiln::optimizers {

struct AdamWOptions {
  LearningRate learning_rate = 0.001;
  double weight_decay = 0.004;
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  bool amsgrad = false;
  /// base.weight_decay is ignored: the field above wins.
  OptimizerOptions base;
  KILN_FIELDS(AdamWOptions, learning_rate, weight_decay, beta_1, beta_2, epsilon, amsgrad, base)
};

class AdamW : public Adam {
 public:
  using Options = AdamWOptions;
  explicit AdamW(AdamWOptions o = {});
  std::string class_name() const override { return "AdamW"; }
};

}  // namespace kiln::optimizers
