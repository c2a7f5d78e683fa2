#pragma once
// Metric base: stateful, with update_state / result / reset_state. State lives
// in non-trainable Variables so it can be saved. Concrete metrics live in metrics/.
// To add a metric: derive from Metric (or MeanMetricWrapper for a per-sample
// function), create state with add_state(), register with KILN_REGISTER_METRIC (kiln/metrics/metrics.h).
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/core/tensor.h"
#include "kiln/autodiff/variable.h"

namespace kiln {

/// Options every metric takes (Keras's base-metric kwargs).
struct MetricOptions {
  std::string name;  ///< Metric name; empty uses the class's default (e.g. "mean_absolute_error").
  DType dtype = DType::float32;  ///< The dtype of the state variables and result.
};

/// Base of every metric (Keras's keras.metrics.Metric): stateful, with
/// update_state(), result() and reset_state(). State lives in non-trainable
/// Variables so it can be saved.
class Metric {
 public:
  /// `default_name` is used when options.name is empty.
  Metric(std::string default_name, MetricOptions options);
  virtual ~Metric() = default;
  /// Accumulates a batch; sample_weight broadcasts against the per-sample values.
  virtual void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = Tensor()) = 0;
  /// The metric's value from the state accumulated so far.
  virtual Tensor result() const = 0;
  /// Sets every state variable back to its initial value.
  virtual void reset_state();
  /// tf.keras 2's name for reset_state(), kept so TF 2 code compiles.
  [[deprecated("use reset_state()")]] void reset_states() { reset_state(); }
  /// update_state then result (calling a metric accumulates, as in Keras).
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = Tensor());
  /// Keras class name ("MeanAbsoluteError"), used in saved configs.
  virtual std::string class_name() const = 0;
  /// Metric config as JSON (Keras's get_config(): name, dtype, ...).
  virtual Config get_config() const;
  /// The metric name, as shown in the training logs.
  const std::string& name() const { return name_; }
  /// Renames the metric (compile() prefixes output names this way).
  void set_name(const std::string& n) { name_ = n; }
  /// The dtype of the state and result.
  DType dtype() const { return dtype_; }
  /// The state variables, in creation order.
  const std::vector<Variable>& variables() const { return state_; }
  /// Whether update_state() and result() are device ops only, so a GPU model
  /// can keep the state on the GPU and update it there, inside its step, with
  /// no copy to the host (Keras's metrics are variables updated in the graph).
  /// Metrics that count on the host (thresholds, confusion matrices, top-k)
  /// say false; a GPU model with any such metric keeps all its metrics on the host.
  virtual bool runs_on_device() const { return true; }
  /// Moves the state variables to `device`.
  void to(Device device);
  /// A fresh metric of the same class and config (empty state).
  virtual std::shared_ptr<Metric> clone() const = 0;

 protected:
  /// Creates a non-trainable state variable of `shape` filled with `init`,
  /// which reset_state() restores.
  Variable add_state(const std::string& name, const Shape& shape, double init = 0.0);
  /// For the top of update_state(): inside a shape-polymorphic kiln::function
  /// trace, runs `update` (a call of update_state with the same arguments) as
  /// one call the trace can re-run for other shapes, and returns true; returns
  /// false elsewhere, and the update goes on as usual.
  ///   if (logged_update([=, this] { update_state(y_true, y_pred, sample_weight); })) return;
  bool logged_update(const std::function<void()>& update);
  /// Common config entries (name, dtype) that get_config() starts from.
  Config base_config() const;

 private:
  std::string name_;
  DType dtype_;
  std::vector<Variable> state_;
  std::vector<double> init_;
};
using MetricPtr = std::shared_ptr<Metric>;  ///< A shared metric.
/// A metric function: (y_true, y_pred) -> per-sample values.
using MetricFn = std::function<Tensor(const Tensor& y_true, const Tensor& y_pred)>;

namespace metrics {
/// By Keras name ("accuracy" is resolved by Model::compile from shapes; here
/// "sparse_categorical_accuracy", "auc", "mae", ...) or class name.
MetricPtr get(const std::string& name);
MetricPtr from_config(const Config& c);  ///< From {"class_name", "config"} (or Keras's serialize format, or a name).
/// Registers a metric factory under `name` (for get() and from_config()).
void register_metric(const std::string& name, std::function<MetricPtr(const Config&)> factory);
/// Wraps a per-sample function (or loss) as a mean metric (MeanMetricWrapper).
/// Needs the metrics module (kiln::metrics::register_builtins(), which kiln::init calls).
MetricPtr from_function(MetricFn fn, const std::string& name);
/// Keras's serialize format: {"module", "class_name", "config", "registered_name"}.
/// from_config accepts it (and a bare name string).
Config serialize(const Metric& metric);
/// Every registered name (class names, snake_case names and aliases).
std::vector<std::string> names();

namespace detail {
/// Called once by get()/from_config()/from_function()/names() before the first
/// lookup; the metrics module points it at kiln::metrics::register_builtins()
/// (kiln::init and metrics::register_builtins() itself set it).
extern void (*builtins_hook)();
/// Builds a kiln::metrics::MeanMetricWrapper for from_function (set by the metrics module).
extern MetricPtr (*function_metric_factory)(MetricFn fn, const std::string& name);
}  // namespace detail
}  // namespace metrics

/// One metric: a name, an object or a named function.
class MetricArg {
 public:
  /// A metric by name, resolved by compile() ("accuracy", "mae").
  MetricArg(const char* name) : name_(name) {}
  /// A metric by name, resolved by compile().
  MetricArg(std::string name) : name_(std::move(name)) {}
  /// A metric object.
  MetricArg(MetricPtr p) : ptr_(std::move(p)) {}
  /// A metric object, copied.
  template <class M>
    requires std::is_base_of_v<Metric, M>
  MetricArg(M m) : ptr_(std::make_shared<M>(std::move(m))) {}
  /// The name given, empty for objects.
  const std::string& name() const { return name_; }
  /// The metric object, null for names.
  const MetricPtr& ptr() const { return ptr_; }

 private:
  std::string name_;
  MetricPtr ptr_;
};

/// compile()'s metrics: one list for every output, or lists per output name.
class MetricsConfig {
 public:
  MetricsConfig();  ///< No metric given.
  ~MetricsConfig();  ///< Out of line: every includer would otherwise instantiate the map code.
  MetricsConfig(const MetricsConfig&);  ///< Copies the arguments.
  MetricsConfig(MetricsConfig&&) noexcept;  ///< Moves the arguments.
  MetricsConfig& operator=(const MetricsConfig&);  ///< Copies the arguments.
  MetricsConfig& operator=(MetricsConfig&&) noexcept;  ///< Moves the arguments.
  /// The same metrics for every output: {"accuracy", "mae"}.
  MetricsConfig(std::initializer_list<MetricArg> all);
  /// The same metrics for every output.
  MetricsConfig(std::vector<MetricArg> all);
  /// Metrics per output name: {{"out_a", {"mae"}}, {"out_b", {"accuracy"}}}.
  MetricsConfig(std::initializer_list<std::pair<const std::string, std::vector<MetricArg>>> by_name);
  /// Metrics per output name.
  MetricsConfig(std::map<std::string, std::vector<MetricArg>> by_name);
  /// The metrics for every output (empty when given per output).
  const std::vector<MetricArg>& all() const { return all_; }
  /// The metrics by output name.
  const std::map<std::string, std::vector<MetricArg>>& by_name() const { return by_name_; }
  /// True when no metric was given.
  bool empty() const { return all_.empty() && by_name_.empty(); }

 private:
  std::vector<MetricArg> all_;
  std::map<std::string, std::vector<MetricArg>> by_name_;
};

}  // namespace kiln
