#include "kiln/metrics/mean_iou.h"

#include <nlohmann/json.hpp>

#include "confusion_utils.h"
#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/reduce_ops.h"
#include "kiln/core/registry.h"
#include "metric_config.h"

namespace kiln::metrics {

MeanIoU::MeanIoU(int64_t num_classes, MeanIoUOptions o)
    : Metric(to_snake_case("MeanIoU"), MetricOptions{o.name, o.dtype}), num_classes_(num_classes), o_(o) {
  if (num_classes_ < 1) throw ValueError("MeanIoU: num_classes must be >= 1, received " + std::to_string(num_classes));
  total_cm_ = add_state("total_confusion_matrix", Shape{num_classes_, num_classes_});
}

void MeanIoU::update_state(const Tensor& y_true_in, const Tensor& y_pred_in, const Tensor& sample_weight) {
  if (logged_update([=, this] { MeanIoU::update_state(y_true_in, y_pred_in, sample_weight); })) return;
  Tensor yt = o_.sparse_y_true ? y_true_in : argmax(y_true_in, o_.axis);
  Tensor yp = o_.sparse_y_pred ? y_pred_in : argmax(y_pred_in, o_.axis);
  auto labels = yt.to_vector<double>();
  auto preds = yp.to_vector<double>();
  if (labels.size() != preds.size())
    throw ShapeError("MeanIoU: y_true and y_pred must have the same number of entries, but received shapes " +
                     yt.shape().to_string() + " and " + yp.shape().to_string());
  const int64_t n = static_cast<int64_t>(labels.size());
  std::vector<double> w(labels.size(), 1.0);
  if (sample_weight.defined()) {
    Tensor s = cast(sample_weight, DType::float64);
    if (s.rank() > 1) s = reshape(s, Shape{-1});
    w = broadcast_to(s, Shape{n}).to_vector<double>();
  }
  std::vector<double> cm(static_cast<std::size_t>(num_classes_ * num_classes_), 0.0);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (o_.ignore_class && static_cast<int64_t>(labels[i]) == *o_.ignore_class) continue;
    const auto t = static_cast<int64_t>(labels[i]), p = static_cast<int64_t>(preds[i]);
    if (t < 0 || t >= num_classes_ || p < 0 || p >= num_classes_)
      throw ValueError("MeanIoU: labels must be in [0, " + std::to_string(num_classes_) + "), but received label " +
                       std::to_string(t) + " and prediction " + std::to_string(p));
    cm[static_cast<std::size_t>(t * num_classes_ + p)] += w[i];
  }
  total_cm_.assign_add(cast(Tensor(cm, Shape{num_classes_, num_classes_}), total_cm_.dtype()));
}

Tensor MeanIoU::result() const {
  auto cm = detail::values_of(total_cm_);
  const auto k = static_cast<std::size_t>(num_classes_);
  double iou_sum = 0, valid = 0;
  for (std::size_t c = 0; c < k; ++c) {
    double row = 0, col = 0;  // sum over predictions (true class c), sum over labels (predicted c)
    for (std::size_t j = 0; j < k; ++j) {
      row += cm[c * k + j];
      col += cm[j * k + c];
    }
    const double tp = cm[c * k + c];
    const double denom = row + col - tp;
    if (denom > 1e-9) valid += 1;
    iou_sum += tp / (denom + 1e-7);
  }
  return detail::make_result({iou_sum / (valid + 1e-7)}, dtype(), true);
}

Config MeanIoU::get_config() const { return detail::with_args(detail::with_fields(base_config(), o_), *this); }

std::shared_ptr<Metric> MeanIoU::clone() const {
  MeanIoUOptions o = o_;
  o.name = name();
  o.dtype = dtype();
  return std::make_shared<MeanIoU>(num_classes_, o);
}

KILN_REGISTER_METRIC(MeanIoU, "MeanIoU", "mean_io_u", "mean_iou")

}  // namespace kiln::metrics
