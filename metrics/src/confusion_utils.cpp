#include "confusion_utils.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/training/loss.h"

namespace kiln::metrics::detail {

std::vector<double> parse_init_thresholds(const std::vector<double>& thresholds, double default_threshold,
                                          const std::string& who) {
  if (thresholds.empty()) return {default_threshold};
  std::string bad;
  for (double t : thresholds)
    if (!(t >= 0.0 && t <= 1.0)) bad += (bad.empty() ? "" : ", ") + std::to_string(t);
  if (!bad.empty()) throw ValueError(who + ": threshold values must be in [0, 1]. Received: [" + bad + "]");
  return thresholds;
}

bool is_evenly_distributed_thresholds(const std::vector<double>& t) {
  const std::size_t n = t.size();
  if (n < 3) return false;
  for (std::size_t i = 0; i < n; ++i) {
    const double even = static_cast<double>(static_cast<float>(i) / static_cast<float>(n - 1));
    if (std::abs(t[i] - even) > 1e-7 + 1e-5 * std::abs(even)) return false;  // np.allclose(atol=eps)
  }
  return true;
}

std::vector<double> values_of(const Variable& v) { return v.read_value_untracked().to_vector<double>(); }

Tensor make_result(const std::vector<double>& values, DType dtype, bool scalar) {
  if (scalar) return cast(Tensor(values.at(0)), dtype);
  return cast(Tensor(values, Shape{static_cast<int64_t>(values.size())}), dtype);
}

namespace {

void add_to(Variable* v, const std::vector<double>& delta) {
  if (!v) return;
  v->assign_add(cast(Tensor(delta, Shape{static_cast<int64_t>(delta.size())}), v->dtype()));
}

}  // namespace

namespace {

/// Keras's _filter_top_k: keeps the k largest of each row (lower index first on
/// ties) and sets the rest to NEG_INF.
void filter_top_k(std::vector<float>& pred, int64_t last, int k) {
  const int64_t rows = static_cast<int64_t>(pred.size()) / std::max<int64_t>(last, 1);
  std::vector<int64_t> idx(static_cast<std::size_t>(last));
  for (int64_t r = 0; r < rows; ++r) {
    float* row = pred.data() + r * last;
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [row](int64_t a, int64_t b) { return row[a] > row[b]; });
    std::vector<bool> keep(static_cast<std::size_t>(last), false);
    for (int64_t i = 0; i < std::min<int64_t>(k, last); ++i) keep[static_cast<std::size_t>(idx[i])] = true;
    for (int64_t j = 0; j < last; ++j)
      if (!keep[static_cast<std::size_t>(j)]) row[j] = static_cast<float>(kNegInf);
  }
}

/// Keeps only column class_id of the (samples, classes) predictions and labels.
void select_class(std::vector<float>& pred, std::vector<float>& label, Shape& shape, int class_id, int64_t last,
                  const std::string& who) {
  if (shape.rank() < 2)
    throw ValueError(who + ": when class_id is provided, y_pred must be a 2D array with shape (num_samples, "
                           "num_classes), found shape: " + shape.to_string());
  if (class_id < 0 || class_id >= last)
    throw IndexError(who + ": class_id " + std::to_string(class_id) + " is out of range for " +
                     std::to_string(last) + " classes");
  std::vector<float> p2, l2;
  for (std::size_t i = static_cast<std::size_t>(class_id); i < pred.size(); i += static_cast<std::size_t>(last)) {
    p2.push_back(pred[i]);
    l2.push_back(label[i]);
  }
  pred.swap(p2);
  label.swap(l2);
  shape[-1] = 1;
}

/// Weighted true/false positive/negative counts, one per threshold.
struct ConfusionCounts {
  std::vector<double> tp, fp, tn, fn;
  explicit ConfusionCounts(std::size_t T) : tp(T, 0), fp(T, 0), tn(T, 0), fn(T, 0) {}
};

/// Evenly spaced thresholds, by buckets: bucket(p) = ceil(p * (T - 1)) - 1, so
/// p counts for every threshold below it.
void count_bucketed(ConfusionCounts& c, const std::vector<float>& pred, const std::vector<float>& label,
                    const std::vector<double>& w, const std::vector<double>& thresholds) {
  const std::size_t T = thresholds.size(), n = pred.size();
  double total_true = 0, total_false = 0;
  for (std::size_t j = 0; j < n; ++j) (label[j] != 0.f ? total_true : total_false) += w[j];
  const bool with_epsilon = thresholds.front() < 0.0 || thresholds.back() > 1.0;
  std::vector<double> tp_bucket(T, 0), fp_bucket(T, 0);
  const float scale = static_cast<float>(T - 1);
  for (std::size_t j = 0; j < n; ++j) {
    const float p = std::min(std::max(pred[j], 0.f), 1.f);
    float b = std::ceil(p * scale) - 1.f;
    if (with_epsilon) b = std::max(b, 0.f);
    if (b < 0.f || b >= static_cast<float>(T)) continue;  // segment_sum drops out-of-range ids
    (label[j] != 0.f ? tp_bucket : fp_bucket)[static_cast<std::size_t>(b)] += w[j];
  }
  double acc_tp = 0, acc_fp = 0;
  for (std::size_t i = T; i-- > 0;) {
    acc_tp += tp_bucket[i];
    acc_fp += fp_bucket[i];
    c.tp[i] = acc_tp;
    c.fp[i] = acc_fp;
  }
  for (std::size_t i = 0; i < T; ++i) {
    c.fn[i] = total_true - c.tp[i];
    c.tn[i] = total_false - c.fp[i];
  }
}

/// Any thresholds: each prediction compared with each threshold.
void count_per_threshold(ConfusionCounts& c, const std::vector<float>& pred, const std::vector<float>& label,
                         const std::vector<double>& w, const std::vector<double>& thresholds) {
  for (std::size_t i = 0; i < thresholds.size(); ++i) {
    const float t = static_cast<float>(thresholds[i]);
    for (std::size_t j = 0; j < pred.size(); ++j) {
      const bool pos_pred = pred[j] > t, pos_label = label[j] != 0.f;
      if (pos_label)
        (pos_pred ? c.tp : c.fn)[i] += w[j];
      else
        (pos_pred ? c.fp : c.tn)[i] += w[j];
    }
  }
}

}  // namespace

void update_confusion_matrix_variables(const ConfusionVariables& vars, const Tensor& y_true_in, const Tensor& y_pred_in,
                                       const std::vector<double>& thresholds, bool evenly, std::optional<int> top_k,
                                       std::optional<int> class_id, const Tensor& sample_weight,
                                       const std::string& who) {
  // Keras casts both to the variables' dtype (float32) first.
  Tensor y_true = cast(stop_gradient(y_true_in), DType::float32);
  Tensor y_pred = cast(stop_gradient(y_pred_in), DType::float32);
  {
    auto [p, t] = squeeze_or_expand_to_same_rank(y_pred, y_true);
    y_pred = p;
    y_true = t;
  }
  if (!(y_true.shape() == y_pred.shape()))
    throw ShapeError(who + ": y_true and y_pred must have the same shape, but received " + y_true.shape().to_string() +
                     " and " + y_pred.shape().to_string());
  Tensor sw;
  if (sample_weight.defined()) {
    sw = expand_dims(cast(stop_gradient(sample_weight), DType::float32), -1);
    sw = squeeze_or_expand_to_same_rank(y_true, sw, /*expand_rank_1=*/false).second;
  }

  std::vector<float> pred = y_pred.to_vector<float>();
  std::vector<float> label = y_true.to_vector<float>();
  Shape shape = y_pred.shape();
  const int64_t last = shape.rank() > 0 ? shape[-1] : 1;
  if (top_k) filter_top_k(pred, last, *top_k);
  if (class_id) select_class(pred, label, shape, *class_id, last, who);
  std::vector<double> w(pred.size(), 1.0);
  if (sw.defined()) {
    Shape target(shape);
    w = broadcast_to(sw, target).to_vector<double>();
  }

  ConfusionCounts counts(thresholds.size());
  if (evenly && thresholds.size() >= 2)
    count_bucketed(counts, pred, label, w, thresholds);
  else
    count_per_threshold(counts, pred, label, w, thresholds);
  add_to(vars.tp, counts.tp);
  add_to(vars.fp, counts.fp);
  add_to(vars.tn, counts.tn);
  add_to(vars.fn, counts.fn);
}

}  // namespace kiln::metrics::detail
