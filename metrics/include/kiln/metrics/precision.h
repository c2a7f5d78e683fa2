#pragma once
// Precision (keras.metrics.Precision): tp / (tp + fp), 0 when nothing is predicted positive.
//
//   kiln::metrics::Precision m;
//   m.update_state(Tensor({0.f, 1.f, 1.f, 1.f}), Tensor({1.f, 0.f, 1.f, 1.f}));  // 0.6666667
//   kiln::metrics::Precision({.top_k = 2})      // only the 2 largest predictions of a row count
//   kiln::metrics::Precision({.class_id = 1})   // one class of (N, C) predictions
// thresholds default to {0.5} ({-1e10} with top_k). result(): a float32 scalar
// for one threshold, else shape (num_thresholds,). State: true_positives, false_positives.
#include <optional>
#include <vector>

#include "kiln/training/metric.h"

namespace kiln::metrics {

struct PrecisionOptions {
  std::vector<double> thresholds;
  std::optional<int> top_k;
  std::optional<int> class_id;
  std::string name;
  DType dtype = DType::float32;
};

class Precision : public Metric {
 public:
  explicit Precision(PrecisionOptions options = {});
  void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = Tensor()) override;
  Tensor result() const override;
  std::string class_name() const override { return "Precision"; }
  Config get_config() const override;
  std::shared_ptr<Metric> clone() const override;
  const std::vector<double>& thresholds() const { return thresholds_; }

 private:
  PrecisionOptions o_;
  std::vector<double> thresholds_;
  bool evenly_;
  Variable tp_, fp_;
};

}  // namespace kiln::metrics
