#pragma once
// Optimizer base (Keras 3 semantics). Concrete optimizers live in optimizers/.
// apply() = skip missing gradients -> clip gradients -> weight decay
// (var -= var * weight_decay * lr) -> update_step per variable -> EMA update
// (and overwrite every ema_overwrite_frequency steps) -> iterations += 1 ->
// variable constraints, in keras/src/optimizers/base_optimizer.py's order.
// Slots are created lazily by build() on the first apply(). No tape records
// any of it.
//
// To add an optimizer:
//   1. Derive from kiln::Optimizer; take an options struct (`Options`) whose
//      KILN_FIELDS lists learning_rate, its own keys and the embedded
//      OptimizerOptions `base` (written flat, as Keras does).
//   2. build_slots(): add_slot(var, "momentum"), ... in the order Keras 3's build()
//      makes them, which files keep: one add_optimizer_variables call interleaves
//      its names per variable; a later call adds its kind for every variable after.
//   3. update_step(grad, var, lr, index): Keras's exact formula with ops + var.assign*.
//   4. class_name()/get_config() (optimizers/src/optimizer_config.h) and one
//      KILN_REGISTER_OPTIMIZER(Adam, "Adam", "adam") line in its .cpp.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/core/fields.h"
#include "kiln/core/tensor.h"
#include "kiln/autodiff/variable.h"
#include "kiln/core/host_scalar.h"

namespace kiln {

namespace optimizers {
/// A learning rate that depends on the step (optimizer.iterations).
class LearningRateSchedule {
 public:
  virtual ~LearningRateSchedule() = default;
  /// The learning rate at optimizer step `step`.
  virtual double operator()(int64_t step) const = 0;
  /// Keras class name ("ExponentialDecay"), used in saved configs.
  virtual std::string class_name() const = 0;
  /// Schedule config as JSON (Keras's get_config()).
  virtual Config get_config() const = 0;
};
using SchedulePtr = std::shared_ptr<LearningRateSchedule>;  ///< A shared schedule.
/// Rebuilds a schedule from {"class_name", "config"} (registered in optimizers/).
SchedulePtr schedule_from_config(const Config& c);
/// Registers a schedule factory under its class name.
void register_schedule(const std::string& class_name, std::function<SchedulePtr(const Config&)> factory);
}  // namespace optimizers

/// A float or a schedule: {.learning_rate = 1e-3} or {.learning_rate = ExponentialDecay(...)}.
class LearningRate {
 public:
  /// A constant learning rate.
  LearningRate(double v) : value_(v) {}
  /// A schedule evaluated at each step.
  LearningRate(optimizers::SchedulePtr s) : schedule_(std::move(s)) {}
  /// A schedule object, copied.
  template <class S>
    requires std::is_base_of_v<optimizers::LearningRateSchedule, S>
  LearningRate(S s) : schedule_(std::make_shared<S>(std::move(s))) {}
  /// The learning rate at `step`.
  double at(int64_t step) const { return schedule_ ? (*schedule_)(step) : value_; }
  /// The schedule; null for a constant rate.
  const optimizers::SchedulePtr& schedule() const { return schedule_; }
  /// The constant rate (unused with a schedule).
  double value() const { return value_; }

 private:
  double value_ = 0.001;
  optimizers::SchedulePtr schedule_;
};

/// Arguments every Keras optimizer takes. At most one of the clips may be set.
struct OptimizerOptions {
  std::optional<double> weight_decay;  ///< Decoupled weight decay: var -= var * weight_decay * lr before each update.
  std::optional<double> clipnorm;  ///< Clips each gradient to this L2 norm.
  std::optional<double> clipvalue;  ///< Clips each gradient element to [-clipvalue, clipvalue].
  std::optional<double> global_clipnorm;  ///< Clips all gradients together to this global L2 norm.
  bool use_ema = false;  ///< Keeps an exponential moving average of the weights.
  double ema_momentum = 0.99;  ///< The EMA's momentum: ema = ema * m + var * (1 - m).
  std::optional<int> ema_overwrite_frequency;  ///< Every this many steps, overwrites the weights with their EMA.
  std::string name;  ///< Optimizer name; empty uses the class's default ("adam").
  KILN_FIELDS(OptimizerOptions, name, weight_decay, clipnorm, global_clipnorm, clipvalue, use_ema, ema_momentum,
              ema_overwrite_frequency)
};

/// Base of every optimizer (Keras's keras.optimizers.Optimizer, Keras 3 semantics).
/// apply() skips missing gradients, clips, applies weight decay, runs update_step()
/// per variable, updates the EMA, increments iterations and applies constraints.
/// Slots are created lazily by build() on the first apply().
class Optimizer {
 public:
  /// `default_name` is used when options.name is empty.
  Optimizer(std::string default_name, LearningRate lr, OptimizerOptions options);
  virtual ~Optimizer() = default;

  /// Applies one step. grads[i] may be nullopt (skipped, like Keras's None).
  void apply(const std::vector<std::optional<Tensor>>& grads, const std::vector<Variable>& vars);
  /// apply() with (gradient, variable) pairs (Keras's apply_gradients()).
  void apply_gradients(const std::vector<std::pair<std::optional<Tensor>, Variable>>& grads_and_vars);
  /// Creates the slots for `vars` (called lazily by apply()).
  void build(const std::vector<Variable>& vars);
  /// Whether the slots have been created.
  bool built() const { return built_; }
  /// Runs `f` once, right after the slots are created (at once if they exist):
  /// a checkpoint restored before the first step fills them this way.
  void call_after_build(std::function<void()> f);

  /// The number of steps applied so far (Keras's optimizer.iterations).
  virtual int64_t iterations() const;
  /// Current learning rate (the schedule evaluated at `iterations`).
  virtual double learning_rate() const;
  /// Sets a float learning rate (replaces a schedule).
  virtual void set_learning_rate(double lr);
  /// The learning rate as given: a float or a schedule.
  const LearningRate& learning_rate_arg() const { return lr_; }
  /// The optimizer name.
  const std::string& name() const { return name_; }
  /// The base options (weight decay, clips, EMA).
  const OptimizerOptions& options() const { return options_; }

  /// Keras 3 order: iterations, learning_rate, then slots in build order.
  virtual std::vector<Variable> variables() const;
  /// The tracked model variables, in the order build() saw them.
  const std::vector<Variable>& tracked_variables() const { return tracked_; }
  /// Slots of model variable i, in creation order.
  std::vector<Variable> slots_for(std::size_t i) const;

  /// Overwrites `vars` with their moving averages (what fit() does after the last
  /// epoch). Throws ValueError unless use_ema is set and `vars` matches the
  /// tracked variables in number.
  virtual void finalize_variable_values(const std::vector<Variable>& vars);
  /// Exchanges the values of `vars` and their moving averages (Keras's
  /// SwapEMAWeights callback; twice restores the weights). Throws as finalize_variable_values().
  void swap_ema_weights(const std::vector<Variable>& vars);
  /// The EMA slot of model variable i (undefined Variable without use_ema).
  Variable ema_variable(std::size_t i) const;

  /// Keras's exclude_from_weight_decay: call before the optimizer is built.
  /// Variables in `vars`, or whose name contains one of `var_names`, get no weight decay.
  void exclude_from_weight_decay(const std::vector<Variable>& vars = {},
                                 const std::vector<std::string>& var_names = {});

  /// Keras class name ("Adam"), used in saved configs.
  virtual std::string class_name() const = 0;
  /// Keras config: name, learning_rate (float or schedule object), weight_decay, clips, EMA, plus subclass keys.
  virtual Config get_config() const;
  /// Moves the optimizer's variables to a device.
  virtual void to(Device device);
  /// The loss a training step differentiates (Keras's scale_loss): the loss
  /// itself, or times the loss scale of a LossScaleOptimizer.
  virtual Tensor scale_loss(const Tensor& loss) const { return loss; }
  /// The optimizer this one wraps (a LossScaleOptimizer's), saved under
  /// optimizer/inner_optimizer as Keras saves it; null for the others.
  virtual const Optimizer* inner_optimizer() const { return nullptr; }

 protected:
  /// One step, eagerly (apply() runs it directly, or as a host node of a trace).
  virtual void apply_now(const std::vector<std::optional<Tensor>>& grads, const std::vector<Variable>& vars);
  /// Creates the slots for the tracked variables with add_slot(), in Keras 3's order.
  virtual void build_slots(const std::vector<Variable>& vars) = 0;
  /// Updates `var` (tracked variable `index`) from `grad` at learning rate `lr`: Keras's update_step().
  virtual void update_step(const Tensor& grad, Variable& var, double lr, std::size_t index) = 0;
  /// A zero-initialised (or `init`-filled) slot shaped like `var`, named
  /// "<var path with / as _>_<slot>" as Keras 3 does.
  Variable add_slot(const Variable& var, const std::string& slot, double init = 0.0);
  /// Slot `k` (creation order within this variable) of variable `index`.
  Variable& slot(std::size_t index, std::size_t k);
  /// The local step t = iterations + 1 used by bias corrections.
  int64_t local_step() const { return iterations() + 1; }
  /// Common config entries (name, learning_rate, weight decay, clips, EMA) that get_config() starts from.
  Config base_config() const;
  /// Called once per apply(), after clipping and weight decay, before the
  /// update_step() calls (Keras's `_backend_update_step` override point;
  /// Nadam advances its u_product here).
  virtual void prepare_update_steps(double lr) { (void)lr; }
  /// True for an optimizer whose update_step is one fused kernel per variable
  /// (kiln/ops/fused_updates.h) whose only per-step input is a step size,
  /// step_size_for(lr, var), passed as step_size(index). Inside a kiln::function
  /// trace its step is then recorded as those kernels, and a host node computes
  /// the sizes before each replay; other optimizers' steps replay as one host step.
  virtual bool updates_with_step_size() const { return false; }
  /// This step's size for `var` at learning rate `lr` (Adam's bias-corrected alpha).
  virtual double step_size_for(double lr, const Variable& var) const {
    (void)var;
    return lr;
  }
  /// Variable `index`'s step size for the current step, live inside a trace.
  HostScalar step_size(std::size_t index) const;
  /// A non-slot optimizer variable (e.g. Nadam's u_product), appended to
  /// variables() in creation order. Call from build_slots().
  Variable add_optimizer_variable(const std::string& name, const Tensor& initial);

 private:
  std::string name_;
  LearningRate lr_;
  OptimizerOptions options_;
  bool built_ = false;
  std::vector<std::function<void()>> after_build_;
  Variable iterations_;
  Variable learning_rate_var_;
  std::vector<Variable> tracked_;
  std::vector<std::vector<Variable>> slots_;
  std::vector<Variable> slot_order_;
  std::vector<Variable> ema_;
  std::size_t building_index_ = 0;
  std::vector<uint64_t> wd_excluded_ids_;
  std::vector<std::string> wd_excluded_names_;
  // This step's learning rate and per-variable step sizes, computed on the host
  // by refresh_step(). Traces hold pointers to them (HostScalar::live), so
  // step_sizes_ is sized once, by build().
  double step_lr_ = 0;
  std::vector<double> step_sizes_;

  /// The float learning rate: the exact double given by the user unless the
  /// float32 `learning_rate` variable was assigned since (e.g. loaded weights).
  double float_learning_rate() const;
  /// Whether a trace can record this optimizer's step as kernels: nothing in it
  /// reads a value on the host or runs code a record would freeze.
  bool records_kernels() const;
  void refresh_step(const std::vector<std::size_t>& indices);
  bool use_weight_decay(const Variable& v) const;
  std::size_t index_of(const Variable& v) const;
};

using OptimizerPtr = std::shared_ptr<Optimizer>;  ///< A shared optimizer.

namespace optimizers {
/// "adam", "sgd", "rmsprop", ... or a Keras class name; error lists close matches.
OptimizerPtr get(const std::string& name);
OptimizerPtr from_config(const Config& c);  ///< From {"class_name", "config"} (or Keras's serialize format).
/// Registers an optimizer factory under `name` (for get() and from_config()).
void register_optimizer(const std::string& name, std::function<OptimizerPtr(const Config&)> factory);
/// {"module": "keras.optimizers", "class_name", "config", "registered_name": null}.
Config serialize(const Optimizer& o);

namespace detail {
/// Registers the built-in optimizers and schedules (set by optimizers/, see
/// kiln/optimizers/register.h). get(), from_config() and schedule_from_config()
/// run it once before their first lookup. A static library may drop the TU
/// that sets it, so kiln::optimizers::register_builtins() also sets and runs it.
extern void (*builtins_hook)();
}  // namespace detail
}  // namespace optimizers

/// compile({.optimizer = "adam"}) or an object.
class OptimizerArg {
 public:
  /// An optimizer by name ("adam", "sgd").
  OptimizerArg(const char* name) : name_(name) {}
  /// An optimizer by name.
  OptimizerArg(std::string name) : name_(std::move(name)) {}
  /// An optimizer object.
  OptimizerArg(OptimizerPtr p) : ptr_(std::move(p)) {}
  /// An optimizer object, copied.
  template <class O>
    requires std::is_base_of_v<Optimizer, O>
  OptimizerArg(O o) : ptr_(std::make_shared<O>(std::move(o))) {}
  /// The optimizer object; throws when the name is unknown.
  OptimizerPtr resolve() const { return ptr_ ? ptr_ : optimizers::get(name_); }

 private:
  std::string name_;
  OptimizerPtr ptr_;
};

}  // namespace kiln
