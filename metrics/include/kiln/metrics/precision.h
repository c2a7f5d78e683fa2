#pragma once
/// @class kiln::metrics::Precision
/// Precision (keras.metrics.Precision): tp / (tp + fp), 0 when nothing is predicted positive.
///
/// @code{.unparsed}
///   kiln::metrics::Precision m;
///   m.update_state(Tensor({0.f, 1.f, 1.f, 1.f}), Tensor({1.f, 0.f, 1.f, 1.f}));  // 0.6666667
///   kiln::metrics::Precision({.top_k = 2})      // only the 2 largest predictions of a row count
///   kiln::metrics::Precision({.class_id = 1})   // one class of (N, C) predictions
/// @endcode
/// thresholds default to {0.5} ({-1e10} with top_k). result(): a float32 scalar
/// for one threshold, else shape (num_thresholds,). State: true_positives, false_positives.
#include <memory>
#include <string>

#include "kiln/metrics/confusion_ratio.h"

namespace kiln::metrics {

/// Precision's options: thresholds, top_k, class_id, name, dtype.
using PrecisionOptions = ConfusionRatioOptions;

class Precision : public ConfusionRatio {
 public:
  /// Throws ValueError for a threshold outside [0, 1].
  explicit Precision(PrecisionOptions options = {})
      : ConfusionRatio(Other::false_positives, "precision", "Precision", std::move(options)) {}
  std::string class_name() const override { return "Precision"; }
  std::shared_ptr<Metric> clone() const override { return std::make_shared<Precision>(clone_options()); }
};

}  // namespace kiln::metrics
