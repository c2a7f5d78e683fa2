#pragma once
/// @class kiln::metrics::FBetaScore
/// FBetaScore and F1Score (keras.metrics.FBetaScore / F1Score).
///
/// @code{.unparsed}
///   precision = tp / (tp + fp + 1e-7),  recall = tp / (tp + fn + 1e-7)
///   f = (1 + b^2) * precision * recall / (b^2 * precision + recall + 1e-7)
/// @endcode
///
/// Inputs (batch, num_classes), multi-class or multi-label. A prediction is 1
/// where y_pred > threshold, or (threshold unset) at each row's maximum.
/// average: "" (None: one score per class, shape (num_classes,)), "micro"
/// (global counts, scalar), "macro" (mean over classes) or "weighted" (mean
/// weighted by each class's support). Example (Keras docstring):
/// @code{.unparsed}
///   kiln::metrics::F1Score m({.threshold = 0.5});
///   m.update_state(Tensor({{1, 1, 1}, {1, 0, 0}}, ...), ...)  // [0.5, 0.8, 0.6666667]
/// @endcode
#include <optional>

#include "kiln/core/fields.h"
#include "kiln/training/metric.h"

namespace kiln::metrics {

/// Options of FBetaScore (keras.metrics.FBetaScore's arguments and defaults).
struct FBetaScoreOptions {
  std::string average;  ///< "" (Keras's None: one score per class), "micro", "macro" or "weighted".
  double beta = 1.0;  ///< Weight of recall against precision; must be > 0.
  std::optional<double> threshold;  ///< In (0, 1]: y_pred > threshold is 1; unset: each row's maximum is 1.
  std::string name;  ///< Empty gives "fbeta_score".
  DType dtype = DType::float32;  ///< The dtype of the result.
  KILN_FIELDS(FBetaScoreOptions, average, beta, threshold)
};

/// Options of F1Score (keras.metrics.F1Score's arguments and defaults): FBetaScoreOptions with beta = 1.
struct F1ScoreOptions {
  std::string average;  ///< "" (Keras's None: one score per class), "micro", "macro" or "weighted".
  std::optional<double> threshold;  ///< In (0, 1]: y_pred > threshold is 1; unset: each row's maximum is 1.
  std::string name;  ///< Empty gives "f1_score".
  DType dtype = DType::float32;  ///< The dtype of the result.
  KILN_FIELDS(F1ScoreOptions, average, threshold)
};

class FBetaScore : public Metric {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = FBetaScoreOptions;
  /// Throws ValueError for an unknown average, beta <= 0 or a threshold outside (0, 1].
  /// update_state throws ShapeError unless y_true and y_pred are the same (batch, num_classes) shape
  /// (num_classes fixed by the first batch).
  explicit FBetaScore(FBetaScoreOptions options = {});
  void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = Tensor()) override;
  Tensor result() const override;
  void reset_state() override;
  std::string class_name() const override { return "FBetaScore"; }
  bool runs_on_device() const override { return false; }  // counts on the host
  Config get_config() const override;
  std::shared_ptr<Metric> clone() const override;

 protected:
  /// For F1Score: default_name is the name used when options.name is empty.
  FBetaScore(std::string default_name, FBetaScoreOptions options);
  /// The options given at construction.
  FBetaScoreOptions o_;

 private:
  void build(int64_t num_classes);
  bool built_ = false;
  int64_t num_classes_ = 0;
  Variable tp_, fp_, fn_, weights_;
};

/// F1Score (keras.metrics.F1Score): the FBetaScore with beta = 1.
class F1Score : public FBetaScore {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = F1ScoreOptions;
  /// Throws ValueError as FBetaScore does.
  explicit F1Score(F1ScoreOptions options = {});
  std::string class_name() const override { return "F1Score"; }
  Config get_config() const override;
  std::shared_ptr<Metric> clone() const override;
};

}  // namespace kiln::metrics
