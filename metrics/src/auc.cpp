#include "kiln/metrics/auc.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "confusion_utils.h"
#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

namespace {
double divide_no_nan(double a, double b) { return b == 0.0 ? 0.0 : a / b; }
constexpr double kEps = 1e-7;
}  // namespace

AUC::AUC(AUCOptions o) : Metric("auc", MetricOptions{o.name, o.dtype}), o_(o) {
  if (o_.curve == "roc") o_.curve = "ROC";
  if (o_.curve == "pr") o_.curve = "PR";
  if (o_.curve != "ROC" && o_.curve != "PR")
    throw ValueError("AUC: invalid AUC curve value: \"" + o.curve + "\". Expected values are [\"PR\", \"ROC\"]");
  std::string sm = o_.summation_method;
  if (sm == "Interpolation") sm = "interpolation";
  if (sm == "Minoring") sm = "minoring";
  if (sm == "Majoring") sm = "majoring";
  if (sm != "interpolation" && sm != "minoring" && sm != "majoring")
    throw ValueError("AUC: invalid AUC summation method value: \"" + o.summation_method +
                     "\". Expected values are [\"interpolation\", \"majoring\", \"minoring\"]");
  o_.summation_method = sm;

  std::vector<double> inner;
  if (!o_.thresholds.empty()) {
    inner = detail::parse_init_thresholds(o_.thresholds, 0.5, "AUC");
    std::sort(inner.begin(), inner.end());
    num_thresholds_ = static_cast<int>(inner.size()) + 2;
    std::vector<double> with_ends{0.0};
    with_ends.insert(with_ends.end(), inner.begin(), inner.end());
    with_ends.push_back(1.0);
    evenly_ = detail::is_evenly_distributed_thresholds(with_ends);
  } else {
    if (o_.num_thresholds <= 1)
      throw ValueError("AUC: argument `num_thresholds` must be an integer > 1. Received: num_thresholds=" +
                       std::to_string(o_.num_thresholds));
    num_thresholds_ = o_.num_thresholds;
    for (int i = 0; i < num_thresholds_ - 2; ++i) inner.push_back((i + 1) * 1.0 / (num_thresholds_ - 1));
    evenly_ = true;
  }
  // End points below 0 and above 1 so that predictions of exactly 0 or 1 are handled.
  thresholds_.push_back(0.0 - kEps);
  thresholds_.insert(thresholds_.end(), inner.begin(), inner.end());
  thresholds_.push_back(1.0 + kEps);

  const Shape s{num_thresholds_};
  tp_ = add_state("true_positives", s);
  fp_ = add_state("false_positives", s);
  tn_ = add_state("true_negatives", s);
  fn_ = add_state("false_negatives", s);
}

void AUC::update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight) {
  if (logged_update([=, this] { AUC::update_state(y_true, y_pred, sample_weight); })) return;
  Tensor p = o_.from_logits ? sigmoid(cast(y_pred, DType::float32)) : y_pred;
  detail::update_confusion_matrix_variables({&tp_, &fp_, &tn_, &fn_}, y_true, p, thresholds_, evenly_, std::nullopt,
                                            std::nullopt, sample_weight, "AUC");
}

double AUC::interpolate_pr_auc() const {
  // Keras's closed form (see keras.metrics.AUC.interpolate_pr_auc): within
  // [A, B], precision = (tp_A + slope (P - P_A)) / P with P = tp + fp, whose
  // integral is slope * (dtp + intercept * log(P_B / P_A)).
  auto tp = detail::values_of(tp_), fp = detail::values_of(fp_), fn = detail::values_of(fn_);
  const std::size_t T = tp.size();
  double total = 0;
  for (std::size_t i = 0; i + 1 < T; ++i) {
    const double dtp = tp[i] - tp[i + 1];
    const double p_a = tp[i] + fp[i], p_b = tp[i + 1] + fp[i + 1];
    const double dp = p_a - p_b;
    const double prec_slope = divide_no_nan(dtp, std::max(dp, 0.0));
    const double intercept = tp[i + 1] - prec_slope * p_b;
    const double safe_p_ratio = (p_a > 0 && p_b > 0) ? divide_no_nan(p_a, std::max(p_b, 0.0)) : 1.0;
    total += divide_no_nan(prec_slope * (dtp + intercept * std::log(safe_p_ratio)),
                           std::max(tp[i + 1] + fn[i + 1], 0.0));
  }
  return total;
}

Tensor AUC::result() const {
  if (o_.curve == "PR" && o_.summation_method == "interpolation")
    return detail::make_result({interpolate_pr_auc()}, dtype(), true);
  auto tp = detail::values_of(tp_), fp = detail::values_of(fp_), tn = detail::values_of(tn_),
       fn = detail::values_of(fn_);
  const std::size_t T = tp.size();
  std::vector<double> x(T), y(T);
  for (std::size_t i = 0; i < T; ++i) {
    const double recall = divide_no_nan(tp[i], tp[i] + fn[i]);
    if (o_.curve == "ROC") {
      x[i] = divide_no_nan(fp[i], fp[i] + tn[i]);
      y[i] = recall;
    } else {
      x[i] = recall;
      y[i] = divide_no_nan(tp[i], tp[i] + fp[i]);
    }
  }
  double total = 0;
  for (std::size_t i = 0; i + 1 < T; ++i) {
    double height;
    if (o_.summation_method == "interpolation")
      height = (y[i] + y[i + 1]) / 2.0;
    else if (o_.summation_method == "minoring")
      height = std::min(y[i], y[i + 1]);
    else
      height = std::max(y[i], y[i + 1]);
    total += (x[i] - x[i + 1]) * height;
  }
  return detail::make_result({total}, dtype(), true);
}

Config AUC::get_config() const {
  Config c = detail::with_fields(base_config(), o_);
  c["num_thresholds"] = num_thresholds_;  // given thresholds set the number
  // Only user-given thresholds are written (without the added end points).
  if (o_.thresholds.empty()) c.erase("thresholds");
  else c["thresholds"] = std::vector<double>(thresholds_.begin() + 1, thresholds_.end() - 1);
  // Keras's multi-label keys: Kiln's AUC is single-label.
  c["multi_label"] = false;
  c["num_labels"] = nullptr;
  c["label_weights"] = nullptr;
  return c;
}

namespace {
MetricPtr auc_from_config(const Config& c) {
  if (config_io::ConfigReader("AUC", c).boolean("multi_label", false))
    throw ValueError("AUC: multi_label=True is not supported");
  return detail::metric_from_fields<AUC>("AUC", c);
}
}  // namespace

std::shared_ptr<Metric> AUC::clone() const {
  AUCOptions o = o_;
  o.name = name();
  o.dtype = dtype();
  return std::make_shared<AUC>(o);
}

KILN_REGISTER_METRIC_FACTORY(AUC, auc_from_config, "AUC", "auc")

}  // namespace kiln::metrics
