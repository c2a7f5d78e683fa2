// The optimizer and learning-rate-schedule registries behind optimizers::get,
// from_config and schedule_from_config: built-ins are registered lazily through
// a hook, and optimizer names match case-insensitively as in Keras.
#include <cctype>
#include <functional>
#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/core/registry.h"
#include "kiln/training/optimizer.h"
#include "training/learning_rate_config.h"

namespace kiln {

namespace optimizers::detail {
void (*builtins_hook)() = nullptr;
OptimizerPtr loss_scale_optimizer_from_config(const Config& c);
}  // namespace optimizers::detail

namespace {

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Registry<std::function<OptimizerPtr(const Config&)>>& optimizer_registry() {
  static Registry<std::function<OptimizerPtr(const Config&)>> r("optimizer", &optimizers::detail::builtins_hook);
  // The framework's own wrapper: compile() makes it, so files naming it load without the catalogue.
  static const bool framework_classes =
      (r.add("LossScaleOptimizer", &optimizers::detail::loss_scale_optimizer_from_config), true);
  (void)framework_classes;
  return r;
}
Registry<std::function<optimizers::SchedulePtr(const Config&)>>& schedule_registry() {
  static Registry<std::function<optimizers::SchedulePtr(const Config&)>> r("learning rate schedule",
                                                                     &optimizers::detail::builtins_hook);
  return r;
}

}  // namespace

namespace optimizers {

void register_optimizer(const std::string& name, std::function<OptimizerPtr(const Config&)> factory) {
  optimizer_registry().add(name, std::move(factory));
}

void register_schedule(const std::string& class_name, std::function<SchedulePtr(const Config&)> factory) {
  schedule_registry().add(class_name, std::move(factory));
}

namespace {
template <class R>
auto lookup(R& reg, const std::string& name, const std::string& kind) {
  if (auto* f = reg.find(name)) return *f;
  // Keras matches optimizer identifiers case-insensitively ("Adam", "adam", "ADAM").
  const std::string key = lowercase(name);
  for (const auto& n : reg.names())
    if (lowercase(n) == key) return *reg.find(n);
  // Suggest only the snake_case spellings to keep the message short.
  std::vector<std::string> candidates;
  for (const auto& n : reg.names())
    if (n == lowercase(n)) candidates.push_back(n);
  if (candidates.empty()) candidates = reg.names();
  throw_unknown(kind, name, candidates);
}
}  // namespace

OptimizerPtr get(const std::string& name) {
  return lookup(optimizer_registry(), name, "optimizer")(Config::object());
}

OptimizerPtr from_config(const Config& c) {
  if (c.is_string()) return get(c.get<std::string>());
  if (!c.is_object() || !c.contains("class_name"))
    throw ValueError("optimizers::from_config expects {\"class_name\": ..., \"config\": {...}}, received " + c.dump());
  const Config cfg = c.contains("config") && !c["config"].is_null() ? c["config"] : Config::object();
  return lookup(optimizer_registry(), c["class_name"].get<std::string>(), "optimizer")(cfg);
}

Config serialize(const Optimizer& o) {
  return {{"module", "keras.optimizers"},
          {"class_name", o.class_name()},
          {"config", o.get_config()},
          {"registered_name", nullptr}};
}

SchedulePtr schedule_from_config(const Config& c) {
  if (!c.is_object() || !c.contains("class_name"))
    throw ValueError("schedule_from_config expects {\"class_name\": ..., \"config\": {...}}, received " + c.dump());
  const Config cfg = c.contains("config") && !c["config"].is_null() ? c["config"] : Config::object();
  const std::string cls = c["class_name"].get<std::string>();
  if (auto* f = schedule_registry().find(cls)) return (*f)(cfg);
  throw_unknown("learning rate schedule", cls, schedule_registry().names());
}

}  // namespace optimizers

Config config_value(const LearningRate& lr) {
  if (!lr.schedule()) return lr.value();
  return {{"module", "keras.optimizers.schedules"},
          {"class_name", lr.schedule()->class_name()},
          {"config", lr.schedule()->get_config()},
          {"registered_name", nullptr}};
}

void read_value(const config_io::ConfigReader& r, const char* key, LearningRate& lr) {
  if (!r.has(key)) return;
  const Config& v = r.raw()[key];
  if (v.is_object()) lr = LearningRate(optimizers::schedule_from_config(v));
  else lr = LearningRate(r.number(key, lr.value()));
}

}  // namespace kiln
