#include "kiln/metrics/confusion_counts.h"

#include <nlohmann/json.hpp>

#include "confusion_utils.h"
#include "metric_config.h"

namespace kiln::metrics {

ConfusionMatrixConditionCount::ConfusionMatrixConditionCount(Condition condition, std::string default_name,
                                                             ConfusionCountOptions o)
    : Metric(std::move(default_name), MetricOptions{o.name, o.dtype}),
      condition_(condition),
      init_thresholds_(o.thresholds),
      thresholds_(detail::parse_init_thresholds(o.thresholds, 0.5, "ConfusionMatrixConditionCount")),
      evenly_(detail::is_evenly_distributed_thresholds(thresholds_)) {
  accumulator_ = add_state("accumulator", Shape{static_cast<int64_t>(thresholds_.size())});
}

void ConfusionMatrixConditionCount::update_state(const Tensor& y_true, const Tensor& y_pred,
                                                 const Tensor& sample_weight) {
  if (logged_update([=, this] { ConfusionMatrixConditionCount::update_state(y_true, y_pred, sample_weight); })) return;
  detail::ConfusionVariables vars;
  switch (condition_) {
    case Condition::true_positives: vars.tp = &accumulator_; break;
    case Condition::false_positives: vars.fp = &accumulator_; break;
    case Condition::true_negatives: vars.tn = &accumulator_; break;
    case Condition::false_negatives: vars.fn = &accumulator_; break;
  }
  detail::update_confusion_matrix_variables(vars, y_true, y_pred, thresholds_, evenly_, std::nullopt, std::nullopt,
                                            sample_weight, class_name());
}

Tensor ConfusionMatrixConditionCount::result() const {
  return detail::make_result(detail::values_of(accumulator_), dtype(), thresholds_.size() == 1);
}

Config ConfusionMatrixConditionCount::get_config() const { return detail::with_fields(base_config(), options()); }

Config config_value(const Thresholds& t) {
  if (t.empty()) return nullptr;
  if (t.size() == 1) return t[0];
  return static_cast<const std::vector<double>&>(t);
}

void read_value(const config_io::ConfigReader& r, const char* key, Thresholds& t) {
  std::vector<double> v;
  config_io::read_value(r, key, v);
  if (r.has(key)) t = Thresholds(std::move(v));
}

KILN_REGISTER_METRIC(TruePositives, "TruePositives", "true_positives")
KILN_REGISTER_METRIC(TrueNegatives, "TrueNegatives", "true_negatives")
KILN_REGISTER_METRIC(FalsePositives, "FalsePositives", "false_positives")
KILN_REGISTER_METRIC(FalseNegatives, "FalseNegatives", "false_negatives")

}  // namespace kiln::metrics
