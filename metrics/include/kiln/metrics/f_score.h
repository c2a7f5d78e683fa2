#pragma once
// FBetaScore and F1Score (keras.metrics.FBetaScore / F1Score).
//
//   precision = tp / (tp + fp + 1e-7),  recall = tp / (tp + fn + 1e-7)
//   f = (1 + b^2) * precision * recall / (b^2 * precision + recall + 1e-7)
//
// Inputs (batch, num_classes), multi-class or multi-label. A prediction is 1
// where y_pred > threshold, or (threshold unset) at each row's maximum.
// average: "" (None: one score per class, shape (num_classes,)), "micro"
// (global counts, scalar), "macro" (mean over classes) or "weighted" (mean
// weighted by each class's support). Example (Keras docstring):
//   kiln::metrics::F1Score m({.threshold = 0.5});
//   m.update_state(Tensor({{1, 1, 1}, {1, 0, 0}}, ...), ...)  // [0.5, 0.8, 0.6666667]
#include <optional>

#include "kiln/core/fields.h"
#include "kiln/training/metric.h"

namespace kiln::metrics {

struct FBetaScoreOptions {
  std::string average;  // "", "micro", "macro" or "weighted"
  double beta = 1.0;
  std::optional<double> threshold;
  std::string name;
  DType dtype = DType::float32;
  KILN_FIELDS(FBetaScoreOptions, average, beta, threshold)
};

struct F1ScoreOptions {
  std::string average;
  std::optional<double> threshold;
  std::string name;
  DType dtype = DType::float32;
  KILN_FIELDS(F1ScoreOptions, average, threshold)
};

class FBetaScore : public Metric {
 public:
  using Options = FBetaScoreOptions;
  explicit FBetaScore(FBetaScoreOptions options = {});
  void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = Tensor()) override;
  Tensor result() const override;
  void reset_state() override;
  std::string class_name() const override { return "FBetaScore"; }
  bool runs_on_device() const override { return false; }  // counts on the host
  Config get_config() const override;
  std::shared_ptr<Metric> clone() const override;

 protected:
  FBetaScore(std::string default_name, FBetaScoreOptions options);
  FBetaScoreOptions o_;

 private:
  void build(int64_t num_classes);
  bool built_ = false;
  int64_t num_classes_ = 0;
  Variable tp_, fp_, fn_, weights_;
};

class F1Score : public FBetaScore {
 public:
  using Options = F1ScoreOptions;
  explicit F1Score(F1ScoreOptions options = {});
  std::string class_name() const override { return "F1Score"; }
  Config get_config() const override;
  std::shared_ptr<Metric> clone() const override;
};

}  // namespace kiln::metrics
