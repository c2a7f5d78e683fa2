#pragma once
/// @class kiln::metrics::MeanAbsoluteError
/// MeanAbsoluteError metric (keras.metrics.MeanAbsoluteError): Running mean of mean(abs(y_true - y_pred), -1).
/// @code{.unparsed}
///   m.update_state({{0, 1}, {0, 0}}, {{1, 1}, {0, 0}})  -> 0.25
/// @endcode
/// result(): a float32 scalar (the weighted running mean). Config: name, dtype.
#include "kiln/metrics/mean_metric_wrapper.h"

namespace kiln::metrics {

/// Per-sample mean_absolute_error: mean(abs(y_true - y_pred), axis=-1).
Tensor mean_absolute_error(const Tensor& y_true, const Tensor& y_pred);


class MeanAbsoluteError : public MeanMetricWrapper {
 public:
  /// options.name defaults to "mean_absolute_error", options.dtype to float32.
  explicit MeanAbsoluteError(MetricOptions options = {});
  std::string class_name() const override { return "MeanAbsoluteError"; }
  std::shared_ptr<Metric> clone() const override;
};

}  // namespace kiln::metrics
