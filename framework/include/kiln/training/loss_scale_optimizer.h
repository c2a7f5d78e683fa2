#pragma once
// Dynamic loss scaling (keras.optimizers.LossScaleOptimizer) for float16
// training: the loss is multiplied by a scale before the gradient, so small
// gradients survive float16; the step divides it back out. A step whose
// gradients are not all finite is skipped and halves the scale; every
// dynamic_growth_steps finite steps in a row double it. compile() wraps the
// optimizer in one under a "mixed_float16" policy, as Keras does.
//
//   auto opt = std::make_shared<kiln::LossScaleOptimizer>(kiln::optimizers::get("adam"));
#include <cstdint>
#include <string>

#include "kiln/training/optimizer.h"

namespace kiln {

/// Options of LossScaleOptimizer (Keras's defaults).
struct LossScaleOptimizerOptions {
  double initial_scale = 32768.0;  ///< The first loss scale, 2^15.
  int64_t dynamic_growth_steps = 2000;  ///< Finite steps in a row after which the scale doubles.
  std::string name;  ///< Empty: "loss_scale_optimizer".
};

/// Wraps an optimizer with dynamic loss scaling. Its variables are its own
/// iteration and learning_rate (unused, as Keras keeps them), step_counter and
/// dynamic_scale, then the inner optimizer's; iterations() and the learning
/// rate are the inner optimizer's.
class LossScaleOptimizer : public Optimizer {
 public:
  /// Wraps `inner`, which must not be null.
  explicit LossScaleOptimizer(OptimizerPtr inner, LossScaleOptimizerOptions options = {});

  std::string class_name() const override { return "LossScaleOptimizer"; }
  /// {name, inner_optimizer (serialized), initial_scale, dynamic_growth_steps}, as Keras writes it.
  Config get_config() const override;
  /// The loss times the current scale (the initial scale before the first step).
  Tensor scale_loss(const Tensor& loss) const override;
  const Optimizer* inner_optimizer() const override { return inner_.get(); }
  /// The wrapped optimizer.
  const OptimizerPtr& inner() const { return inner_; }
  /// The current loss scale.
  double dynamic_scale() const;
  /// Finite steps since the scale last changed.
  int64_t step_counter() const;

  std::vector<Variable> variables() const override;
  int64_t iterations() const override { return inner_->iterations(); }
  double learning_rate() const override { return inner_->learning_rate(); }
  void set_learning_rate(double lr) override { inner_->set_learning_rate(lr); }
  void finalize_variable_values(const std::vector<Variable>& vars) override;
  void to(Device device) override;

 protected:
  void build_slots(const std::vector<Variable>& vars) override;
  void update_step(const Tensor& grad, Variable& var, double lr, std::size_t index) override;
  void apply_now(const std::vector<std::optional<Tensor>>& grads, const std::vector<Variable>& vars) override;

 private:
  OptimizerPtr inner_;
  LossScaleOptimizerOptions o_;
  Variable step_counter_, dynamic_scale_;
};

}  // namespace kiln
