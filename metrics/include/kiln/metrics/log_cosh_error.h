#pragma once
/// @class kiln::metrics::LogCoshError
/// LogCoshError metric (keras.metrics.LogCoshError): Running mean of log(cosh(error)).
/// @code{.unparsed}
///   m.update_state({{0, 1}, {0, 0}}, {{1, 1}, {0, 0}})  -> 0.10844523
/// @endcode
/// result(): a float32 scalar (the weighted running mean). Config: name, dtype.
#include "kiln/metrics/mean_metric_wrapper.h"

namespace kiln::metrics {

/// Per-sample logcosh: mean(log(cosh(y_pred - y_true)), axis=-1).
Tensor log_cosh(const Tensor& y_true, const Tensor& y_pred);


class LogCoshError : public MeanMetricWrapper {
 public:
  /// options.name defaults to "logcosh", options.dtype to float32.
  explicit LogCoshError(MetricOptions options = {});
  std::string class_name() const override { return "LogCoshError"; }
  std::shared_ptr<Metric> clone() const override;
};

}  // namespace kiln::metrics
