// LossScaleOptimizer: Keras 3's dynamic loss scaling around another optimizer.
#include "kiln/training/loss_scale_optimizer.h"

#include <nlohmann/json.hpp>

#include "autodiff/autodiff.h"
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln {

namespace {
OptimizerPtr checked_inner(OptimizerPtr inner) {
  if (!inner) throw ValueError("LossScaleOptimizer: inner_optimizer must be an optimizer, received null");
  if (dynamic_cast<const LossScaleOptimizer*>(inner.get()))
    throw ValueError("LossScaleOptimizer: the inner optimizer is already a LossScaleOptimizer; wrap the optimizer once");
  return inner;
}
}  // namespace

LossScaleOptimizer::LossScaleOptimizer(OptimizerPtr inner, LossScaleOptimizerOptions o)
    : Optimizer("loss_scale_optimizer", 0.0, OptimizerOptions{.name = o.name}), inner_(checked_inner(std::move(inner))),
      o_(std::move(o)) {
  if (!(o_.initial_scale > 0))
    throw ValueError("LossScaleOptimizer: initial_scale must be positive, received " + std::to_string(o_.initial_scale));
  if (o_.dynamic_growth_steps < 1)
    throw ValueError("LossScaleOptimizer: dynamic_growth_steps must be at least 1, received " +
                     std::to_string(o_.dynamic_growth_steps));
}

void LossScaleOptimizer::build_slots(const std::vector<Variable>& vars) {
  // Keras's build(): step_counter, then dynamic_scale, then the inner optimizer's variables.
  step_counter_ = add_optimizer_variable("step_counter", Tensor(0.0, DType::int32));
  dynamic_scale_ = add_optimizer_variable("dynamic_scale", Tensor(o_.initial_scale, DType::float32));
  inner_->build(vars);
}

void LossScaleOptimizer::update_step(const Tensor&, Variable&, double, std::size_t) {
  throw ValueError("LossScaleOptimizer '" + name() + "': steps go through its inner optimizer");
}

std::vector<Variable> LossScaleOptimizer::variables() const {
  std::vector<Variable> out = Optimizer::variables();
  const std::vector<Variable> inner = inner_->variables();
  out.insert(out.end(), inner.begin(), inner.end());
  return out;
}

double LossScaleOptimizer::dynamic_scale() const {
  return built() ? dynamic_scale_.read_value_untracked().item<double>() : o_.initial_scale;
}

int64_t LossScaleOptimizer::step_counter() const {
  return built() ? step_counter_.read_value_untracked().item<int64_t>() : 0;
}

Tensor LossScaleOptimizer::scale_loss(const Tensor& loss) const {
  if (!built()) return loss * o_.initial_scale;
  return loss * cast(dynamic_scale_.value(), loss.dtype()).to(loss.device());
}

void LossScaleOptimizer::apply_now(const std::vector<std::optional<Tensor>>& grads,
                                   const std::vector<Variable>& vars) {
  if (grads.empty()) return;
  if (!built()) build(vars);
  autodiff::Pause pause;
  // One host read decides the step: are all the (scaled) gradients finite?
  Tensor finite;
  for (const auto& g : grads) {
    if (!g || !g->defined()) continue;
    const Tensor ok = all(isfinite(*g)).to(Device::cpu());
    finite = finite.defined() ? logical_and(finite, ok) : ok;
  }
  const double scale = dynamic_scale_.read_value_untracked().item<double>();
  if (finite.defined() && !finite.item<bool>()) {
    step_counter_.assign(0);
    dynamic_scale_.assign(scale * 0.5);
    return;
  }
  std::vector<std::optional<Tensor>> unscaled;
  unscaled.reserve(grads.size());
  for (const auto& g : grads)
    unscaled.push_back(g && g->defined() ? std::optional<Tensor>(*g / scale) : g);
  inner_->apply(unscaled, vars);
  if (step_counter_.read_value_untracked().item<int64_t>() == o_.dynamic_growth_steps - 1) {
    step_counter_.assign(0);
    dynamic_scale_.assign(scale * 2.0);
  } else {
    step_counter_.assign_add(1);
  }
}

void LossScaleOptimizer::finalize_variable_values(const std::vector<Variable>& vars) {
  inner_->finalize_variable_values(vars);
}

void LossScaleOptimizer::to(Device device) {
  // step_counter and dynamic_scale are read on the host every step; they stay there.
  inner_->to(device);
}

Config LossScaleOptimizer::get_config() const {
  return {{"name", name()},
          {"inner_optimizer", optimizers::serialize(*inner_)},
          {"initial_scale", o_.initial_scale},
          {"dynamic_growth_steps", o_.dynamic_growth_steps}};
}

namespace optimizers::detail {
OptimizerPtr loss_scale_optimizer_from_config(const Config& c) {
  if (!c.contains("inner_optimizer"))
    throw ValueError("LossScaleOptimizer.from_config: the config has no 'inner_optimizer', received " + c.dump());
  if (c.contains("dynamic") && c["dynamic"].is_boolean() && !c["dynamic"].get<bool>())
    throw ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply set `loss_scale_factor` "
                     "directly on the `inner_optimizer`.");
  // Older Keras wrote the base optimizer's arguments too; only their defaults are accepted.
  const Config defaults = {{"weight_decay", nullptr},   {"clipnorm", nullptr},      {"global_clipnorm", nullptr},
                           {"clipvalue", nullptr},      {"use_ema", false},         {"ema_momentum", 0.99},
                           {"ema_overwrite_frequency", nullptr}, {"loss_scale_factor", nullptr},
                           {"gradient_accumulation_steps", nullptr}};
  std::string unknown;
  for (const auto& [key, value] : c.items()) {
    if (key == "name" || key == "inner_optimizer" || key == "initial_scale" || key == "dynamic_growth_steps" ||
        key == "dynamic")
      continue;
    if (!defaults.contains(key)) {
      unknown += (unknown.empty() ? "`" : "`, `") + key;
      continue;
    }
    if (value != defaults[key])
      throw ValueError("LossScaleOptimizer does not support `" + key + "`. Instead, set `" + key +
                       "` on the `inner_optimizer`.");
  }
  if (!unknown.empty()) throw ValueError("LossScaleOptimizer does not support arguments: " + unknown + "`.");
  LossScaleOptimizerOptions o;
  o.name = c.value("name", std::string());
  if (c.contains("initial_scale")) o.initial_scale = c["initial_scale"].get<double>();
  if (c.contains("dynamic_growth_steps")) o.dynamic_growth_steps = c["dynamic_growth_steps"].get<int64_t>();
  return std::make_shared<LossScaleOptimizer>(from_config(c["inner_optimizer"]), o);
}
}  // namespace optimizers::detail

}  // namespace kiln
