// Metric base: state variables, reset, calling, config, and the metric registry.
#include "kiln/training/metric.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "core/op_log.h"
#include "kiln/core/error.h"
#include "kiln/core/registry.h"

namespace kiln {

MetricsConfig::MetricsConfig() = default;
MetricsConfig::~MetricsConfig() = default;
MetricsConfig::MetricsConfig(const MetricsConfig&) = default;
MetricsConfig::MetricsConfig(MetricsConfig&&) noexcept = default;
MetricsConfig& MetricsConfig::operator=(const MetricsConfig&) = default;
MetricsConfig& MetricsConfig::operator=(MetricsConfig&&) noexcept = default;
MetricsConfig::MetricsConfig(std::initializer_list<MetricArg> all) : all_(all) {}
MetricsConfig::MetricsConfig(std::vector<MetricArg> all) : all_(std::move(all)) {}
MetricsConfig::MetricsConfig(std::initializer_list<std::pair<const std::string, std::vector<MetricArg>>> by_name)
    : by_name_(by_name) {}
MetricsConfig::MetricsConfig(std::map<std::string, std::vector<MetricArg>> by_name) : by_name_(std::move(by_name)) {}

Metric::Metric(std::string default_name, MetricOptions options)
    : name_(options.name.empty() ? std::move(default_name) : std::move(options.name)),
      // State and results are floating point; an integer dtype falls back to float32.
      dtype_(is_floating(options.dtype) ? options.dtype : DType::float32) {}

Variable Metric::add_state(const std::string& name, const Shape& shape, double init) {
  // Non-trainable, so reading it inside a GradientTape watches nothing.
  Variable v(fill(shape, init, dtype_), VariableOptions{.name = name, .trainable = false});
  v.set_path(name_ + "/" + name);
  state_.push_back(v);
  init_.push_back(init);
  return v;
}

void Metric::reset_state() {
  for (std::size_t i = 0; i < state_.size(); ++i)
    state_[i].assign(fill(state_[i].shape(), init_[i], state_[i].dtype()).to(state_[i].device()));
}

void Metric::to(Device device) {
  for (auto& v : state_) v.move_to(device);
}

bool Metric::logged_update(const std::function<void()>& update) {
  if (!oplog::logging()) return false;
  oplog::run_logged(name_.c_str(), [update] { update(); });
  return true;
}

Tensor Metric::operator()(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight) {
  update_state(y_true, y_pred, sample_weight);
  return result();
}

Config Metric::base_config() const {
  Config c = Config::object();
  c["name"] = name_;
  c["dtype"] = dtype_name(dtype_);
  return c;
}

Config Metric::get_config() const { return base_config(); }

namespace metrics {
namespace detail {
void (*builtins_hook)() = nullptr;
MetricPtr (*function_metric_factory)(MetricFn fn, const std::string& name) = nullptr;
}  // namespace detail

namespace {

using Factory = std::function<MetricPtr(const Config&)>;

Registry<Factory>& registry() {
  static Registry<Factory> r("metric", &detail::builtins_hook);
  return r;
}

bool has_upper(const std::string& s) {
  for (char c : s)
    if (std::isupper(static_cast<unsigned char>(c))) return true;
  return false;
}

}  // namespace

void register_metric(const std::string& name, std::function<MetricPtr(const Config&)> factory) {
  registry().add(name, std::move(factory));
}

std::vector<std::string> names() { return registry().names(); }

MetricPtr get(const std::string& name) {
  MetricPtr m = registry().get(name)(Config::object());  // unknown: NotFoundError listing close matches
  // A function-style name ("acc", "mse", "sparse_categorical_accuracy") names
  // the metric, as tf.keras logs it; a class name ("MeanSquaredError", and the
  // upper-case aliases) keeps the class's default name.
  if (!has_upper(name)) m->set_name(name);
  return m;
}

MetricPtr from_config(const Config& c) {
  if (c.is_string()) return get(c.get<std::string>());
  if (!c.is_object() || !c.contains("class_name") || !c["class_name"].is_string())
    throw ValueError("metrics::from_config: expected {\"class_name\": ..., \"config\": {...}} or a name, received " +
                     c.dump());
  Config inner = c.contains("config") && c["config"].is_object() ? c["config"] : Config::object();
  return registry().get(c["class_name"].get<std::string>())(inner);
}

MetricPtr from_function(MetricFn fn, const std::string& name) {
  if (!fn) throw ValueError("metrics::from_function: the function for metric '" + name + "' is empty");
  registry().ensure_builtins();  // the metrics module sets the factory
  if (!detail::function_metric_factory)
    throw RuntimeError(
        "metrics::from_function needs the metrics module: call kiln::metrics::register_builtins() "
        "(kiln::init does) first");
  return detail::function_metric_factory(std::move(fn), name);
}

Config serialize(const Metric& metric) {
  Config c = Config::object();
  c["module"] = "keras.metrics";
  c["class_name"] = metric.class_name();
  c["config"] = metric.get_config();
  c["registered_name"] = nullptr;
  return c;
}

}  // namespace metrics
}  // namespace kiln
