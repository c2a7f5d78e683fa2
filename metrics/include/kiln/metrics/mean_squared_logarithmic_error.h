#pragma once
/// @class kiln::metrics::MeanSquaredLogarithmicError
/// MeanSquaredLogarithmicError metric (keras.metrics.MeanSquaredLogarithmicError): Running mean of the squared log error.
/// @code{.unparsed}
///   m.update_state({{0, 1}, {0, 0}}, {{1, 1}, {0, 0}})  -> 0.12011322
/// @endcode
/// result(): a float32 scalar (the weighted running mean). Config: name, dtype.
#include "kiln/metrics/mean_metric_wrapper.h"

namespace kiln::metrics {

/// Per-sample mean_squared_logarithmic_error: mean(square(log(max(y_pred, 1e-7) + 1) - log(max(y_true, 1e-7) + 1)), axis=-1).
Tensor mean_squared_logarithmic_error(const Tensor& y_true, const Tensor& y_pred);


class MeanSquaredLogarithmicError : public MeanMetricWrapper {
 public:
  /// options.name defaults to "mean_squared_logarithmic_error", options.dtype to float32.
  explicit MeanSquaredLogarithmicError(MetricOptions options = {});
  std::string class_name() const override { return "MeanSquaredLogarithmicError"; }
  std::shared_ptr<Metric> clone() const override;
};

}  // namespace kiln::metrics
