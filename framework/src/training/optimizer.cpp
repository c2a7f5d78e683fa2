// Optimizer base: Keras 3's BaseOptimizer.apply() pipeline (see optimizer.h).
#include "kiln/training/optimizer.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/number_text.h"
#include "autodiff/autodiff.h"
#include "core/op_log.h"
#include "backend/recording.h"
#include "distribute/gradient_reducer.h"
#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "ops/host_scalar_tensor.h"
#include "training/distributed.h"
#include "training/learning_rate_config.h"

namespace kiln {

namespace {

std::string opt_str(const std::optional<double>& v) {
  if (!v) return "None";
  std::ostringstream os;
  os << *v;
  return os.str();
}

Tensor cast_to(const Tensor& t, DType d) { return t.dtype() == d ? t : t.cast(d); }

/// Gradient clipping: at most one kind is set; zero or negative disables it, as in Keras.
void clip_gradients(const OptimizerOptions& o, std::vector<Tensor>& grads) {
  if (o.clipnorm && *o.clipnorm > 0) {
    const double c = *o.clipnorm;
    for (auto& g : grads) {
      Tensor norm = sqrt(sum(square(g)));
      g = g * c / maximum(norm, scalar_like(c, norm));
    }
  } else if (o.global_clipnorm && *o.global_clipnorm > 0) {
    const double c = *o.global_clipnorm;
    double sq = 0;
    for (const auto& g : grads) sq += sum(square(g)).item<double>();
    const double norm = std::sqrt(sq);
    // clip * min(1/norm, 1/clip), plus (norm - norm) so a non-finite norm gives NaN.
    const double scale = c * std::min(1.0 / norm, 1.0 / c) + (norm - norm);
    for (auto& g : grads) g = g * scale;
  } else if (o.clipvalue && *o.clipvalue > 0) {
    const double c = *o.clipvalue;
    for (auto& g : grads) g = clip(g, -c, c);
  }
}

}  // namespace

// ---------------------------------------------------------------- construction

Optimizer::Optimizer(std::string default_name, LearningRate lr, OptimizerOptions options)
    : name_(options.name.empty() ? std::move(default_name) : options.name),
      lr_(std::move(lr)),
      options_(std::move(options)) {
  const int clips = int(options_.clipnorm.has_value()) + int(options_.clipvalue.has_value()) +
                    int(options_.global_clipnorm.has_value());
  if (clips > 1)
    throw ValueError("Optimizer '" + name_ +
                     "': only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: clipnorm=" +
                     opt_str(options_.clipnorm) + ", clipvalue=" + opt_str(options_.clipvalue) +
                     ", global_clipnorm=" + opt_str(options_.global_clipnorm));
  if (options_.use_ema) {
    if (options_.ema_momentum > 1 || options_.ema_momentum < 0)
      throw ValueError("Optimizer '" + name_ + "': `ema_momentum` must be in the range [0, 1]. Received: ema_momentum=" +
                       kiln::detail::number_text(options_.ema_momentum));
    if (options_.ema_overwrite_frequency && *options_.ema_overwrite_frequency < 1)
      throw ValueError("Optimizer '" + name_ +
                       "': `ema_overwrite_frequency` must be an integer >= 1 or None. Received: "
                       "ema_overwrite_frequency=" +
                       std::to_string(*options_.ema_overwrite_frequency));
  }
  if (!lr_.schedule() && !std::isfinite(lr_.value()))
    throw ValueError("Optimizer '" + name_ + "': `learning_rate` must be a finite float or a schedule");
  iterations_ = Variable(Tensor(int64_t{0}), {.name = "iteration", .trainable = false});
  iterations_.set_path(name_ + "/iteration");
  // Keras stores a float learning rate in a floatx (float32) variable; with a
  // schedule there is no such variable in `variables()`.
  learning_rate_var_ = Variable(Tensor(static_cast<float>(lr_.schedule() ? 0.0 : lr_.value())),
                                {.name = "learning_rate", .trainable = false});
  learning_rate_var_.set_path(name_ + "/learning_rate");
}

// ---------------------------------------------------------------- state

int64_t Optimizer::iterations() const { return iterations_.read_value_untracked().item<int64_t>(); }

double Optimizer::float_learning_rate() const {
  const float stored = learning_rate_var_.read_value_untracked().item<float>();
  return static_cast<float>(lr_.value()) == stored ? lr_.value() : static_cast<double>(stored);
}

double Optimizer::learning_rate() const {
  if (lr_.schedule()) return (*lr_.schedule())(iterations());
  return float_learning_rate();
}

void Optimizer::set_learning_rate(double lr) {
  if (!std::isfinite(lr))
    throw ValueError("Optimizer '" + name_ + "': set_learning_rate expects a finite float, received " +
                     kiln::detail::number_text(lr));
  // Keras raises TypeError when a schedule is replaced by a float; the Kiln
  // contract (optimizer.h) is to replace it, so the float variable comes back.
  lr_ = LearningRate(lr);
  learning_rate_var_.assign(Tensor(static_cast<float>(lr)));
}

std::vector<Variable> Optimizer::variables() const {
  std::vector<Variable> out{iterations_};
  if (!lr_.schedule()) out.push_back(learning_rate_var_);
  out.insert(out.end(), slot_order_.begin(), slot_order_.end());
  return out;
}

std::vector<Variable> Optimizer::slots_for(std::size_t i) const {
  if (i >= slots_.size())
    throw IndexError("Optimizer '" + name_ + "': slots_for(" + std::to_string(i) + ") but it tracks " +
                     std::to_string(slots_.size()) + " variables");
  return slots_[i];
}

Variable Optimizer::ema_variable(std::size_t i) const { return i < ema_.size() ? ema_[i] : Variable(); }

std::size_t Optimizer::index_of(const Variable& v) const {
  for (std::size_t i = 0; i < tracked_.size(); ++i)
    if (tracked_[i].same_as(v)) return i;
  throw ValueError("Optimizer '" + name_ + "': unknown variable '" + v.path() +
                   "'. This optimizer can only be called for the variables it was originally built with. "
                   "When working with a new set of variables, you should recreate a new optimizer instance.");
}

// ---------------------------------------------------------------- build

void Optimizer::build(const std::vector<Variable>& vars) {
  if (built_) return;
  tracked_ = vars;
  slots_.assign(vars.size(), {});
  step_sizes_.assign(vars.size(), 0.0);
  if (options_.use_ema) {
    // Keras's base build() creates the averages before the subclass's slots.
    ema_.clear();
    for (const auto& v : vars) {
      std::string n = v.path();
      std::replace(n.begin(), n.end(), '/', '_');
      Variable avg(zeros(v.shape(), v.dtype()).to(v.device()), {.name = n + "_average", .trainable = false});
      avg.set_path(name_ + "/" + n + "_average");
      ema_.push_back(avg);
      slot_order_.push_back(avg);
    }
  }
  build_slots(vars);
  built_ = true;
  auto fs = std::move(after_build_);
  after_build_.clear();
  for (auto& f : fs) f();
}

void Optimizer::call_after_build(std::function<void()> f) {
  if (built_) f();
  else after_build_.push_back(std::move(f));
}

Variable Optimizer::add_slot(const Variable& var, const std::string& slot, double init) {
  const std::size_t i = index_of(var);
  std::string n = var.path();
  std::replace(n.begin(), n.end(), '/', '_');
  n += "_" + slot;
  Tensor value = init == 0.0 ? zeros(var.shape(), var.dtype()) : fill(var.shape(), init, var.dtype());
  Variable s(value.to(var.device()), {.name = n, .trainable = false});
  s.set_path(name_ + "/" + n);
  slots_[i].push_back(s);
  slot_order_.push_back(s);
  return s;
}

Variable Optimizer::add_optimizer_variable(const std::string& name, const Tensor& initial) {
  Variable v(initial, {.name = name, .trainable = false});
  v.set_path(name_ + "/" + name);
  slot_order_.push_back(v);
  return v;
}

Variable& Optimizer::slot(std::size_t index, std::size_t k) {
  if (index >= slots_.size() || k >= slots_[index].size())
    throw IndexError("Optimizer '" + name_ + "': no slot " + std::to_string(k) + " for variable " +
                     std::to_string(index));
  return slots_[index][k];
}

// ---------------------------------------------------------------- weight decay

void Optimizer::exclude_from_weight_decay(const std::vector<Variable>& vars,
                                          const std::vector<std::string>& var_names) {
  if (built_)
    throw ValueError("Optimizer '" + name_ +
                     "': `exclude_from_weight_decay()` can only be configured before the optimizer is built.");
  wd_excluded_ids_.clear();
  for (const auto& v : vars) wd_excluded_ids_.push_back(v.id());
  wd_excluded_names_ = var_names;
}

bool Optimizer::use_weight_decay(const Variable& v) const {
  if (std::find(wd_excluded_ids_.begin(), wd_excluded_ids_.end(), v.id()) != wd_excluded_ids_.end()) return false;
  for (const auto& n : wd_excluded_names_)
    if (!n.empty() && v.name().find(n) != std::string::npos) return false;
  return true;
}

// ---------------------------------------------------------------- apply

void Optimizer::apply_gradients(const std::vector<std::pair<std::optional<Tensor>, Variable>>& grads_and_vars) {
  std::vector<std::optional<Tensor>> g;
  std::vector<Variable> v;
  for (const auto& [gi, vi] : grads_and_vars) {
    g.push_back(gi);
    v.push_back(vi);
  }
  apply(g, v);
}

void Optimizer::apply(const std::vector<std::optional<Tensor>>& local_grads, const std::vector<Variable>& vars) {
  if (oplog::logging())
    return oplog::run_logged("OptimizerApply", [this](const std::vector<std::optional<Tensor>>& g,
                                                      const std::vector<Variable>& v) { apply(g, v); },
                             local_grads, vars);
  // Under a multi-process DataParallel, a custom training loop's gradients are
  // averaged across ranks here, as tf.distribute's apply_gradients does; fit's
  // own step has reduced them already, during its backward pass.
  const distribute::DataParallel* strategy = training::active_strategy();
  const auto grads = strategy && !distribute::ReducedGradientsScope::active() && local_grads.size() == vars.size()
                         ? distribute::GradientReducer(vars, strategy->options()).reduce(local_grads)
                         : local_grads;
  if (!backend::active_recording()) return apply_now(grads, vars);
  if (!built_ && grads.size() == vars.size()) build(vars);
  // Inside a kiln::function trace: the step's kernels when nothing in it would
  // be frozen by a record (apply_now computes the step sizes in a host node),
  // else the whole step as one host node that replays run again on the
  // gradients' recorded buffers, with that step's learning rate and counters.
  if (records_kernels()) return apply_now(grads, vars);
  // What the step touches: the gradients, the model's variables and this optimizer's own.
  backend::HostEffects effects{.type = "OptimizerApply", .opaque = false};
  for (const auto& g : grads)
    if (g && g->defined()) effects.reads.push_back(*g);
  for (const auto& v : vars) {
    effects.reads.push_back(v.read_value_untracked());
    effects.writes.push_back(v.read_value_untracked());
  }
  for (const auto& v : variables()) effects.writes.push_back(v.read_value_untracked());
  backend::record_host_node([this, grads, vars] { apply_now(grads, vars); }, std::move(effects));
}

bool Optimizer::records_kernels() const {
  if (!built_ || !updates_with_step_size() || options_.use_ema) return false;
  if (options_.global_clipnorm && *options_.global_clipnorm > 0) return false;  // sums the norms on the host
  for (const auto& v : tracked_)
    if (v.constraint()) return false;  // arbitrary code, run eagerly
  return true;
}

HostScalar Optimizer::step_size(std::size_t index) const {
  if (index >= step_sizes_.size())
    throw IndexError("Optimizer '" + name_ + "': step_size(" + std::to_string(index) + ") but it tracks " +
                     std::to_string(step_sizes_.size()) + " variables");
  return {step_sizes_[index], &step_sizes_[index]};
}

void Optimizer::refresh_step(const std::vector<std::size_t>& indices) {
  step_lr_ = learning_rate();
  if (updates_with_step_size())
    for (std::size_t i : indices) step_sizes_[i] = step_size_for(step_lr_, tracked_[i]);
}

void Optimizer::apply_now(const std::vector<std::optional<Tensor>>& grads_in, const std::vector<Variable>& vars_in) {
  if (grads_in.empty()) return;
  if (grads_in.size() != vars_in.size())
    throw ValueError("Optimizer '" + name_ + "': apply() received " + std::to_string(grads_in.size()) +
                     " gradients for " + std::to_string(vars_in.size()) + " variables");
  if (!built_) build(vars_in);

  // Optimizer updates are never differentiated.
  autodiff::Pause pause;

  // Drop missing gradients (Keras's None); all missing is an error.
  std::vector<Tensor> grads;
  std::vector<Variable> vars;
  std::vector<std::size_t> idx;
  for (std::size_t k = 0; k < grads_in.size(); ++k) {
    const std::size_t i = index_of(vars_in[k]);
    if (!grads_in[k] || !grads_in[k]->defined()) continue;
    const Tensor& g = *grads_in[k];
    if (!(g.shape() == vars_in[k].shape()))
      throw ShapeError("Optimizer '" + name_ + "': gradient for variable '" + vars_in[k].path() + "' has shape " +
                       g.shape().to_string() + " but the variable has shape " + vars_in[k].shape().to_string());
    grads.push_back(cast_to(g, vars_in[k].dtype()));
    vars.push_back(vars_in[k]);
    idx.push_back(i);
  }
  if (grads.empty()) throw ValueError("Optimizer '" + name_ + "': no gradients provided for any variable.");

  clip_gradients(options_, grads);

  // This step's learning rate and step sizes, read from the iteration count:
  // host logic, which a trace records as a host node run before each replay's kernels.
  backend::HostEffects effects{.type = "OptimizerStepSizes", .reads = {iterations_.read_value_untracked()},
                               .opaque = false};
  if (!lr_.schedule()) effects.reads.push_back(learning_rate_var_.read_value_untracked());
  backend::run_as_host_node([this, idx] { refresh_step(idx); }, std::move(effects));
  const HostScalar lr(step_lr_, &step_lr_);

  // Decoupled weight decay: var -= var * wd * lr (Keras _apply_weight_decay).
  if (options_.weight_decay) {
    const double wd = *options_.weight_decay;
    for (auto& v : vars) {
      if (!use_weight_decay(v)) continue;
      Tensor x = v.read_value_untracked();
      v.assign(x - x * wd * host_scalar_tensor(lr, x.dtype(), x.device()));
    }
  }

  prepare_update_steps(step_lr_);
  for (std::size_t k = 0; k < vars.size(); ++k) update_step(grads[k], vars[k], step_lr_, idx[k]);

  if (options_.use_ema) {
    // The first step copies the weights (momentum 0), later ones average.
    const int64_t it = iterations();
    const double m = it == 0 ? 0.0 : options_.ema_momentum;
    for (std::size_t i = 0; i < tracked_.size(); ++i) {
      Tensor avg = ema_[i].read_value_untracked();
      Tensor x = tracked_[i].read_value_untracked();
      ema_[i].assign(avg * m + x * (1.0 - m));
    }
    if (options_.ema_overwrite_frequency && (it + 1) % *options_.ema_overwrite_frequency == 0)
      for (std::size_t i = 0; i < tracked_.size(); ++i) tracked_[i].assign(ema_[i].read_value_untracked());
  }

  iterations_.assign_add(Tensor(int64_t{1}));

  for (auto& v : vars)
    if (v.constraint()) v.assign(v.constraint()(v.read_value_untracked()));
}

void Optimizer::to(Device device) {
  // iterations and learning_rate are host scalars read every step; they stay on the CPU.
  for (auto& s : slot_order_) s.move_to(device);
}

// ---------------------------------------------------------------- config

Config Optimizer::base_config() const {
  Config c = Config::object();
  config_io::write_fields(c, options_);
  c["name"] = name_;
  // A float rate is the exact double given, or the variable's value once assigned.
  c["learning_rate"] = lr_.schedule() ? config_value(lr_) : Config(float_learning_rate());
  c["loss_scale_factor"] = nullptr;
  c["gradient_accumulation_steps"] = nullptr;
  return c;
}

Config Optimizer::get_config() const { return base_config(); }

}  // namespace kiln
