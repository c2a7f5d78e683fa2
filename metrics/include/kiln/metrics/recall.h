#pragma once
// Recall (keras.metrics.Recall): tp / (tp + fn), 0 when there are no positive labels.
//
//   kiln::metrics::Recall m;
//   m.update_state(Tensor({0.f, 1.f, 1.f, 1.f}), Tensor({1.f, 0.f, 1.f, 1.f}));  // 0.6666667
// Options as Precision (thresholds, top_k, class_id). State: true_positives, false_negatives.
#include <optional>
#include <vector>

#include "kiln/training/metric.h"

namespace kiln::metrics {

struct RecallOptions {
  std::vector<double> thresholds;
  std::optional<int> top_k;
  std::optional<int> class_id;
  std::string name;
  DType dtype = DType::float32;
};

class Recall : public Metric {
 public:
  explicit Recall(RecallOptions options = {});
  void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = Tensor()) override;
  Tensor result() const override;
  std::string class_name() const override { return "Recall"; }
  Config get_config() const override;
  std::shared_ptr<Metric> clone() const override;
  const std::vector<double>& thresholds() const { return thresholds_; }

 private:
  RecallOptions o_;
  std::vector<double> thresholds_;
  bool evenly_;
  Variable tp_, fn_;
};

}  // namespace kiln::metrics
