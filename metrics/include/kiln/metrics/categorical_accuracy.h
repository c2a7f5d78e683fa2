#pragma once
/// @class kiln::metrics::CategoricalAccuracy
/// CategoricalAccuracy metric (keras.metrics.CategoricalAccuracy): How often argmax(y_pred) matches one-hot labels; logits work too.
/// @code{.unparsed}
///   m.update_state({{0, 0, 1}, {0, 1, 0}}, {{0.1, 0.9, 0.8}, {0.05, 0.95, 0}})  -> 0.5
/// @endcode
/// result(): a float32 scalar (the weighted running mean). Config: name, dtype.
#include "kiln/metrics/mean_metric_wrapper.h"

namespace kiln::metrics {

/// Per-sample categorical_accuracy: 1 where argmax(y_pred) equals argmax(y_true) (one-hot labels): (batch, ..., C) -> (batch, ...).
Tensor categorical_accuracy(const Tensor& y_true, const Tensor& y_pred);


class CategoricalAccuracy : public MeanMetricWrapper {
 public:
  /// options.name defaults to "categorical_accuracy", options.dtype to float32.
  explicit CategoricalAccuracy(MetricOptions options = {});
  std::string class_name() const override { return "CategoricalAccuracy"; }
  std::shared_ptr<Metric> clone() const override;
};

}  // namespace kiln::metrics
