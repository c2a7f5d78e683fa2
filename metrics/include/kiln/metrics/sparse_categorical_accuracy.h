#pragma once
/// @class kiln::metrics::SparseCategoricalAccuracy
/// SparseCategoricalAccuracy metric (keras.metrics.SparseCategoricalAccuracy): How often argmax(y_pred) matches integer labels; logits work too.
/// @code{.unparsed}
///   m.update_state({{2}, {1}}, {{0.1, 0.6, 0.3}, {0.05, 0.95, 0}})  -> 0.5
/// @endcode
/// result(): a float32 scalar (the weighted running mean). Config: name, dtype.
#include "kiln/metrics/mean_metric_wrapper.h"

namespace kiln::metrics {

/// Per-sample sparse_categorical_accuracy: 1 where argmax(y_pred) equals the integer label: y_true (batch, ...) or (batch, ..., 1), y_pred (batch, ..., C) -> (batch, ...).
Tensor sparse_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred);


class SparseCategoricalAccuracy : public MeanMetricWrapper {
 public:
  /// options.name defaults to "sparse_categorical_accuracy", options.dtype to float32.
  explicit SparseCategoricalAccuracy(MetricOptions options = {});
  std::string class_name() const override { return "SparseCategoricalAccuracy"; }
  std::shared_ptr<Metric> clone() const override;
};

}  // namespace kiln::metrics
