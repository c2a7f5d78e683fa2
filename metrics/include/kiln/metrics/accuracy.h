#pragma once
/// @class kiln::metrics::Accuracy
/// Accuracy metric (keras.metrics.Accuracy): How often predictions equal labels.
/// @code{.unparsed}
///   m.update_state({{1}, {2}, {3}, {4}}, {{0}, {2}, {3}, {4}})  -> 0.75
/// @endcode
/// result(): a float32 scalar (the weighted running mean). Config: name, dtype.
#include "kiln/metrics/mean_metric_wrapper.h"

namespace kiln::metrics {

/// Per-sample accuracy: 1 where y_pred equals y_true, averaged over the last axis: (batch, ..., d) -> (batch, ...).
Tensor accuracy(const Tensor& y_true, const Tensor& y_pred);


class Accuracy : public MeanMetricWrapper {
 public:
  /// options.name defaults to "accuracy", options.dtype to float32.
  explicit Accuracy(MetricOptions options = {});
  std::string class_name() const override { return "Accuracy"; }
  std::shared_ptr<Metric> clone() const override;
};

}  // namespace kiln::metrics
