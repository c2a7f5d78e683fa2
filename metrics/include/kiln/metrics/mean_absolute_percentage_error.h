#pragma once
/// @class kiln::metrics::MeanAbsolutePercentageError
/// MeanAbsolutePercentageError metric (keras.metrics.MeanAbsolutePercentageError): Running mean of the absolute percentage error.
/// @code{.unparsed}
///   m.update_state({{0, 1}, {0, 0}}, {{1, 1}, {0, 0}})  -> 250000000 (zero targets divide by 1e-7)
/// @endcode
/// result(): a float32 scalar (the weighted running mean). Config: name, dtype.
#include "kiln/metrics/mean_metric_wrapper.h"

namespace kiln::metrics {

/// Per-sample mean_absolute_percentage_error: 100 * mean(abs((y_true - y_pred) / max(abs(y_true), 1e-7)), axis=-1).
Tensor mean_absolute_percentage_error(const Tensor& y_true, const Tensor& y_pred);


class MeanAbsolutePercentageError : public MeanMetricWrapper {
 public:
  /// options.name defaults to "mean_absolute_percentage_error", options.dtype to float32.
  explicit MeanAbsolutePercentageError(MetricOptions options = {});
  std::string class_name() const override { return "MeanAbsolutePercentageError"; }
  std::shared_ptr<Metric> clone() const override;
};

}  // namespace kiln::metrics
