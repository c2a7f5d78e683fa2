#pragma once
/// @class kiln::metrics::Recall
/// Recall (keras.metrics.Recall): tp / (tp + fn), 0 when there are no positive labels.
///
/// @code{.unparsed}
///   kiln::metrics::Recall m;
///   m.update_state(Tensor({0.f, 1.f, 1.f, 1.f}), Tensor({1.f, 0.f, 1.f, 1.f}));  // 0.6666667
/// @endcode
/// Options as Precision (thresholds, top_k, class_id). State: true_positives, false_negatives.
#include <memory>
#include <string>

#include "kiln/metrics/confusion_ratio.h"

namespace kiln::metrics {

/// Recall's options: thresholds, top_k, class_id, name, dtype.
using RecallOptions = ConfusionRatioOptions;

class Recall : public ConfusionRatio {
 public:
  /// Throws ValueError for a threshold outside [0, 1].
  explicit Recall(RecallOptions options = {})
      : ConfusionRatio(Other::false_negatives, "recall", "Recall", std::move(options)) {}
  std::string class_name() const override { return "Recall"; }
  std::shared_ptr<Metric> clone() const override { return std::make_shared<Recall>(clone_options()); }
};

}  // namespace kiln::metrics
