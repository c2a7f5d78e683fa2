#pragma once
/// @class kiln::metrics::ConfusionRatio
/// ConfusionRatio: tp / (tp + other) at one or more thresholds, 0 where the
/// denominator is 0, with `other` the false positives (Precision) or the false
/// negatives (Recall). Both are counted as Keras's metrics_utils does:
/// @code{.unparsed}
///   thresholds default to {0.5} ({-1e10} with top_k); with top_k only the k largest
///   predictions of a row count; with class_id only that column of (N, C) predictions.
/// @endcode
/// result(): a float32 scalar for one threshold, else shape (num_thresholds,).
#include <optional>
#include <string>
#include <vector>

#include "kiln/metrics/confusion_counts.h"
#include "kiln/training/metric.h"

namespace kiln::metrics {

/// Options of Precision and Recall (keras.metrics.Precision / Recall's arguments and defaults).
struct ConfusionRatioOptions {
  Thresholds thresholds;  ///< Values in [0, 1]; empty means {0.5}, or {-1e10} with top_k.
  std::optional<int> top_k;  ///< Only the top_k largest predictions of a row count; unset: all.
  std::optional<int> class_id;  ///< Only this column of (N, C) predictions counts; unset: all.
  std::string name;  ///< Empty gives "precision" / "recall".
  DType dtype = DType::float32;  ///< The dtype of the result.
  KILN_FIELDS(ConfusionRatioOptions, thresholds, top_k, class_id)
};

class ConfusionRatio : public Metric {
 public:
  /// The count added to the true positives in the denominator.
  enum class Other { false_positives, false_negatives };
  /// The options struct (generic code builds Options{...}).
  using Options = ConfusionRatioOptions;

  void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = Tensor()) override;
  Tensor result() const override;
  Config get_config() const override;
  /// The thresholds used, defaults filled in.
  const std::vector<double>& thresholds() const { return thresholds_; }
  bool runs_on_device() const override { return false; }  // counts on the host

 protected:
  /// `cls` names the metric in error messages (class_name() is not yet the subclass's here).
  ConfusionRatio(Other other, std::string default_name, std::string cls, ConfusionRatioOptions options);
  /// The options a clone is built from: the given ones with the current name and dtype.
  ConfusionRatioOptions clone_options() const;

 private:
  Other other_;
  std::string cls_;
  ConfusionRatioOptions o_;
  std::vector<double> thresholds_;
  bool evenly_;
  Variable tp_, other_count_;
};

}  // namespace kiln::metrics
