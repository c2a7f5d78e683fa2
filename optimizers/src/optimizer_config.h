#pragma once
// Private helpers shared by the optimizers' from_config factories: read Keras
// config keys with the Keras defaults (null or missing -> default).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "kiln/core/error.h"
#include "kiln/training/optimizer.h"

namespace kiln::optimizers::config_util {

inline double get_double(const Config& c, const char* key, double fallback) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  if (!c[key].is_number())
    throw ValueError(std::string("Optimizer config: `") + key + "` must be a number, received " + c[key].dump());
  return c[key].get<double>();
}

inline bool get_bool(const Config& c, const char* key, bool fallback) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  if (!c[key].is_boolean())
    throw ValueError(std::string("Optimizer config: `") + key + "` must be a boolean, received " + c[key].dump());
  return c[key].get<bool>();
}

inline std::optional<double> get_opt_double(const Config& c, const char* key) {
  if (!c.contains(key) || c[key].is_null()) return std::nullopt;
  return get_double(c, key, 0.0);
}

/// A float, or a serialized schedule {"class_name", "config", ...}.
inline LearningRate get_learning_rate(const Config& c, double fallback) {
  if (!c.contains("learning_rate") || c["learning_rate"].is_null()) return LearningRate(fallback);
  const Config& lr = c["learning_rate"];
  if (lr.is_object()) return LearningRate(schedule_from_config(lr));
  return LearningRate(get_double(c, "learning_rate", fallback));
}

/// name, weight_decay, clips and EMA keys (loss_scale_factor and
/// gradient_accumulation_steps are accepted only as null: Kiln lacks them).
inline OptimizerOptions get_base_options(const Config& c) {
  OptimizerOptions o;
  o.weight_decay = get_opt_double(c, "weight_decay");
  o.clipnorm = get_opt_double(c, "clipnorm");
  o.clipvalue = get_opt_double(c, "clipvalue");
  o.global_clipnorm = get_opt_double(c, "global_clipnorm");
  o.use_ema = get_bool(c, "use_ema", false);
  o.ema_momentum = get_double(c, "ema_momentum", 0.99);
  if (c.contains("ema_overwrite_frequency") && !c["ema_overwrite_frequency"].is_null())
    o.ema_overwrite_frequency = static_cast<int>(get_double(c, "ema_overwrite_frequency", 0));
  if (c.contains("name") && c["name"].is_string()) o.name = c["name"].get<std::string>();
  for (const char* k : {"loss_scale_factor", "gradient_accumulation_steps"})
    if (c.contains(k) && !c[k].is_null())
      throw ValueError(std::string("Optimizer config: `") + k + "` is not supported by Kiln (received " +
                       c[k].dump() + ")");
  return o;
}

}  // namespace kiln::optimizers::config_util
