#include "kiln/metrics/f_score.h"

#include <nlohmann/json.hpp>

#include "core/number_text.h"
#include "confusion_utils.h"
#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "metric_config.h"

namespace kiln::metrics {

namespace {
constexpr double kFScoreEpsilon = 1e-7;

FBetaScoreOptions validate(FBetaScoreOptions o, const std::string& who) {
  if (o.average == "none" || o.average == "None") o.average.clear();
  if (!o.average.empty() && o.average != "micro" && o.average != "macro" && o.average != "weighted")
    throw ValueError(who + ": invalid `average` argument value. Expected one of: {None, 'micro', 'macro', "
                           "'weighted'}. Received: average=" + o.average);
  if (o.beta <= 0.0)
    throw ValueError(who + ": invalid `beta` argument value. It should be > 0. Received: beta=" + kiln::detail::number_text(o.beta));
  if (o.threshold && (*o.threshold > 1.0 || *o.threshold <= 0.0))
    throw ValueError(who + ": invalid `threshold` argument value. It should verify 0 < threshold <= 1. Received: "
                           "threshold=" + kiln::detail::number_text(*o.threshold));
  return o;
}
}  // namespace

FBetaScore::FBetaScore(FBetaScoreOptions o) : FBetaScore("fbeta_score", std::move(o)) {}

FBetaScore::FBetaScore(std::string default_name, FBetaScoreOptions o)
    : Metric(std::move(default_name), MetricOptions{o.name, o.dtype}), o_(validate(o, "FBetaScore")) {}

void FBetaScore::build(int64_t num_classes) {
  // Variables are created on the first update, when the number of classes is known.
  num_classes_ = num_classes;
  const Shape s = o_.average == "micro" ? Shape{} : Shape{num_classes};
  tp_ = add_state("true_positives", s);
  fp_ = add_state("false_positives", s);
  fn_ = add_state("false_negatives", s);
  weights_ = add_state("intermediate_weights", s);
  built_ = true;
}

void FBetaScore::update_state(const Tensor& y_true_in, const Tensor& y_pred_in, const Tensor& sample_weight) {
  if (logged_update([=, this] { FBetaScore::update_state(y_true_in, y_pred_in, sample_weight); })) return;
  if (y_true_in.rank() != 2 || y_pred_in.rank() != 2)
    throw ShapeError(class_name() + " expects 2D inputs with shape (batch_size, output_dim). Received input shapes: "
                     "y_pred.shape=" + y_pred_in.shape().to_string() + " and y_true.shape=" +
                     y_true_in.shape().to_string() + ".");
  if (!(y_true_in.shape() == y_pred_in.shape()))
    throw ShapeError(class_name() + ": y_true and y_pred must have the same shape, but received " +
                     y_true_in.shape().to_string() + " and " + y_pred_in.shape().to_string());
  const int64_t n = y_pred_in.shape()[0], c = y_pred_in.shape()[1];
  if (!built_) build(c);
  if (c != num_classes_)
    throw ShapeError(class_name() + ": expected " + std::to_string(num_classes_) + " classes, but received y_pred of shape " +
                     y_pred_in.shape().to_string());
  auto yt = y_true_in.to_vector<float>();
  auto yp = y_pred_in.to_vector<float>();
  std::vector<double> w(static_cast<std::size_t>(n), 1.0);
  if (sample_weight.defined()) {
    Tensor s = cast(sample_weight, DType::float64);
    if (s.size() == n) s = reshape(s, Shape{n});  // (N,) or (N, 1)
    w = broadcast_to(s, Shape{n}).to_vector<double>();
  }

  const std::size_t slots = o_.average == "micro" ? 1 : static_cast<std::size_t>(c);
  std::vector<double> tp(slots, 0), fp(slots, 0), fn(slots, 0), support(slots, 0);
  for (int64_t i = 0; i < n; ++i) {
    const float* row = yp.data() + i * c;
    float row_max = row[0];
    for (int64_t j = 1; j < c; ++j) row_max = std::max(row_max, row[j]);
    for (int64_t j = 0; j < c; ++j) {
      // Without a threshold the row's maximum is the prediction; |x| > 1e-9 keeps [0, 0, 0] all zero.
      const double pred = o_.threshold ? (row[j] > static_cast<float>(*o_.threshold) ? 1.0 : 0.0)
                                       : (row[j] >= row_max && std::abs(row[j]) > 1e-9 ? 1.0 : 0.0);
      const double truth = yt[static_cast<std::size_t>(i * c + j)];
      const std::size_t k = slots == 1 ? 0 : static_cast<std::size_t>(j);
      const double wi = w[static_cast<std::size_t>(i)];
      tp[k] += wi * pred * truth;
      fp[k] += wi * pred * (1.0 - truth);
      fn[k] += wi * (1.0 - pred) * truth;
      support[k] += wi * truth;
    }
  }
  auto add = [this, slots](Variable& v, const std::vector<double>& d) {
    Tensor t = slots == 1 && o_.average == "micro" ? Tensor(d[0]) : Tensor(d, Shape{static_cast<int64_t>(slots)});
    v.assign_add(cast(t, v.dtype()));
  };
  add(tp_, tp);
  add(fp_, fp);
  add(fn_, fn);
  add(weights_, support);
}

Tensor FBetaScore::result() const {
  if (!built_) return cast(Tensor(0.0), dtype());
  auto tp = detail::values_of(tp_), fp = detail::values_of(fp_), fn = detail::values_of(fn_),
       support = detail::values_of(weights_);
  const double b2 = o_.beta * o_.beta;
  std::vector<double> f(tp.size());
  for (std::size_t i = 0; i < tp.size(); ++i) {
    const double precision = tp[i] / (tp[i] + fp[i] + kFScoreEpsilon);
    const double recall = tp[i] / (tp[i] + fn[i] + kFScoreEpsilon);
    f[i] = precision * recall / (b2 * precision + recall + kFScoreEpsilon) * (1.0 + b2);
  }
  if (o_.average.empty()) return detail::make_result(f, dtype(), false);
  double out = 0;
  if (o_.average == "weighted") {
    double total = 0;
    for (double s : support) total += s;
    for (std::size_t i = 0; i < f.size(); ++i) out += f[i] * support[i] / (total + kFScoreEpsilon);
  } else {  // micro (one slot) or macro
    for (double x : f) out += x;
    out /= static_cast<double>(f.size());
  }
  return detail::make_result({out}, dtype(), true);
}

void FBetaScore::reset_state() { Metric::reset_state(); }

Config FBetaScore::get_config() const {
  Config c = detail::with_fields(base_config(), o_);
  if (o_.average.empty()) c["average"] = nullptr;  // Keras's None
  return c;
}

std::shared_ptr<Metric> FBetaScore::clone() const {
  FBetaScoreOptions o = o_;
  o.name = name();
  o.dtype = dtype();
  return std::make_shared<FBetaScore>(o);
}

F1Score::F1Score(F1ScoreOptions o)
    : FBetaScore("f1_score", FBetaScoreOptions{o.average, 1.0, o.threshold, o.name, o.dtype}) {}

Config F1Score::get_config() const {
  Config c = FBetaScore::get_config();
  c.erase("beta");
  return c;
}

std::shared_ptr<Metric> F1Score::clone() const {
  return std::make_shared<F1Score>(F1ScoreOptions{o_.average, o_.threshold, name(), dtype()});
}

KILN_REGISTER_METRIC(FBetaScore, "FBetaScore", "fbeta_score")
KILN_REGISTER_METRIC(F1Score, "F1Score", "f1_score")

}  // namespace kiln::metrics
