// Restoring a model's compile() arguments (optimizer, loss, metrics) from the
// compile/training config saved in a .keras or legacy .h5 file.
#include <nlohmann/json.hpp>

#include "core/json_errors.h"
#include "io/saving_impl.h"
#include "kiln/core/error.h"
#include "kiln/training/loss.h"
#include "kiln/training/metric.h"
#include "kiln/training/optimizer.h"
#include "kiln/core/registry.h"
#include "kiln/training/sequential.h"
#include "kiln/core/tensor.h"
#include "kiln/ops/array_ops.h"

namespace kiln::io {

namespace {

LossArg loss_from_json(const Config& j) {
  if (j.is_string()) return LossArg(j.get<std::string>());
  return LossArg(losses::from_config(j));
}

void metric_list(const Config& j, std::vector<MetricArg>& out) {
  if (j.is_null()) return;
  if (j.is_string()) {
    out.emplace_back(j.get<std::string>());
    return;
  }
  if (j.is_array()) {
    for (const auto& x : j) metric_list(x, out);  // tf.keras nests one list per output
    return;
  }
  if (j.is_object()) {
    const std::string cls = j.value("class_name", "");
    const Config c = j.value("config", Config::object());
    if (cls == "MeanMetricWrapper") {
      // tf.keras: {"name": "accuracy", "fn": "categorical_accuracy"}
      const std::string name = c.value("name", "");
      if (name == "accuracy" || name == "acc") out.emplace_back("accuracy");
      else out.emplace_back(c.value("fn", name));
      return;
    }
    out.emplace_back(metrics::from_config(j));
  }
}

MetricsConfig metrics_from_json(const Config& j) {
  if (j.is_object() && !j.contains("class_name")) {
    std::map<std::string, std::vector<MetricArg>> by;
    for (auto it = j.begin(); it != j.end(); ++it) {
      std::vector<MetricArg> v;
      metric_list(it.value(), v);
      by.emplace(it.key(), v);
    }
    return MetricsConfig(by);
  }
  std::vector<MetricArg> v;
  metric_list(j, v);
  return MetricsConfig(v);
}

OptimizerPtr optimizer_from_json(const Config& j) {
  if (j.is_string()) return optimizers::get(j.get<std::string>());
  Config c = j.value("config", Config::object());
  const std::string cls = j.value("class_name", "");
  // tf.keras 2 spellings.
  if (c.contains("lr") && !c.contains("learning_rate")) c["learning_rate"] = c["lr"];
  c.erase("lr");
  if (c.contains("decay") && c["decay"].is_number() && c["decay"].get<double>() != 0.0)
    warn("optimizer '" + cls + "': the legacy `decay` argument (" + c["decay"].dump() + ") is ignored");
  c.erase("decay");
  for (const char* k : {"jit_compile", "is_legacy_optimizer"}) c.erase(k);
  try {
    return optimizers::from_config({{"class_name", cls}, {"config", c}});
  } catch (const NotFoundError&) {
    throw;
  } catch (const Error&) {
    // Unknown keys from another Keras version: keep the ones Kiln's optimizer has.
    Config known = optimizers::get(cls)->get_config();
    Config kept = Config::object();
    for (auto it = c.begin(); it != c.end(); ++it)
      if (known.contains(it.key())) kept[it.key()] = it.value();
    return optimizers::from_config({{"class_name", cls}, {"config", kept}});
  }
}

}  // namespace

void compile_from_config(Model& m, const Config& cfg, const std::string& source) {
  try {
    CompileOptions o;
    const Config opt = cfg.contains("optimizer") ? cfg["optimizer"] : cfg.value("optimizer_config", Config(nullptr));
    if (!opt.is_null()) o.optimizer = optimizer_from_json(opt);
    const Config loss = cfg.value("loss", Config(nullptr));
    if (loss.is_string() || (loss.is_object() && loss.contains("class_name"))) {
      o.loss = LossConfig(loss.is_string() ? LossConfig(loss.get<std::string>())
                                           : LossConfig(losses::from_config(loss)));
    } else if (loss.is_object()) {
      std::map<std::string, LossArg> by;
      for (auto it = loss.begin(); it != loss.end(); ++it)
        if (!it.value().is_null()) by.emplace(it.key(), loss_from_json(it.value()));
      o.loss = LossConfig(by);
    } else if (loss.is_array()) {
      std::vector<LossArg> v;
      for (const auto& x : loss) v.push_back(x.is_null() ? LossArg() : loss_from_json(x));
      o.loss = LossConfig(v);
    }
    o.metrics = metrics_from_json(cfg.value("metrics", Config(nullptr)));
    o.weighted_metrics = metrics_from_json(cfg.value("weighted_metrics", Config(nullptr)));
    const Config lw = cfg.value("loss_weights", Config(nullptr));
    if (lw.is_array())
      for (const auto& x : lw) o.loss_weights_list.push_back(x.get<double>());
    else if (lw.is_object())
      for (auto it = lw.begin(); it != lw.end(); ++it) o.loss_weights[it.key()] = it.value().get<double>();
    if (cfg.contains("run_eagerly") && cfg["run_eagerly"].is_boolean()) o.run_eagerly = cfg["run_eagerly"];
    if (cfg.contains("steps_per_execution") && cfg["steps_per_execution"].is_number_integer())
      o.steps_per_execution = cfg["steps_per_execution"];
    m.compile(std::move(o));
  } catch (const nlohmann::json::exception& e) {
    throw ValueError(source + ": malformed training/compile config: " + detail::json_error_text(e));
  } catch (const Error& e) {
    throw ValueError(source + ": cannot compile the model from the saved training config: " + e.what());
  }
}

}  // namespace kiln::io
