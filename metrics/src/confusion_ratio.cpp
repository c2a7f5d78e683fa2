#include "kiln/metrics/confusion_ratio.h"

#include "kiln/metrics/precision.h"
#include "kiln/metrics/recall.h"

#include <nlohmann/json.hpp>

#include "confusion_utils.h"
#include "metric_config.h"

namespace kiln::metrics {

ConfusionRatio::ConfusionRatio(Other other, std::string default_name, std::string cls, ConfusionRatioOptions o)
    : Metric(std::move(default_name), MetricOptions{o.name, o.dtype}),
      other_(other),
      cls_(std::move(cls)),
      o_(o),
      thresholds_(detail::parse_init_thresholds(o.thresholds, o.top_k ? detail::kNegInf : 0.5, cls_)),
      evenly_(detail::is_evenly_distributed_thresholds(thresholds_)) {
  const Shape s{static_cast<int64_t>(thresholds_.size())};
  tp_ = add_state("true_positives", s);
  other_count_ = add_state(other_ == Other::false_positives ? "false_positives" : "false_negatives", s);
}

void ConfusionRatio::update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight) {
  if (logged_update([=, this] { ConfusionRatio::update_state(y_true, y_pred, sample_weight); })) return;
  detail::ConfusionVariables vars;
  vars.tp = &tp_;
  (other_ == Other::false_positives ? vars.fp : vars.fn) = &other_count_;
  detail::update_confusion_matrix_variables(vars, y_true, y_pred, thresholds_, evenly_, o_.top_k, o_.class_id,
                                            sample_weight, cls_);
}

Tensor ConfusionRatio::result() const {
  auto tp = detail::values_of(tp_), other = detail::values_of(other_count_);
  std::vector<double> r(tp.size());
  for (std::size_t i = 0; i < tp.size(); ++i) r[i] = tp[i] + other[i] == 0.0 ? 0.0 : tp[i] / (tp[i] + other[i]);
  return detail::make_result(r, dtype(), thresholds_.size() == 1);
}

Config ConfusionRatio::get_config() const { return detail::with_fields(base_config(), o_); }

ConfusionRatioOptions ConfusionRatio::clone_options() const {
  ConfusionRatioOptions o = o_;
  o.name = name();
  o.dtype = dtype();
  return o;
}

KILN_REGISTER_METRIC(Precision, "Precision", "precision")
KILN_REGISTER_METRIC(Recall, "Recall", "recall")

}  // namespace kiln::metrics
