#pragma once
/// @class kiln::metrics::RootMeanSquaredError
/// RootMeanSquaredError (keras.metrics.RootMeanSquaredError):
/// @code{.unparsed}
///   result = sqrt(running weighted mean of (y_pred - y_true)^2)
/// @endcode
///
/// @code{.unparsed}
///   kiln::metrics::RootMeanSquaredError m;
///   m.update_state({{0.f, 1.f}, {0.f, 0.f}}, {{1.f, 1.f}, {0.f, 0.f}});  // 0.5
/// @endcode
/// result(): a float32 scalar. State: "total", "count" (a Mean of the squared errors).
#include "kiln/metrics/mean.h"

namespace kiln::metrics {

class RootMeanSquaredError : public Mean {
 public:
  /// options.name defaults to "root_mean_squared_error", options.dtype to float32.
  explicit RootMeanSquaredError(MetricOptions options = {});
  void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = Tensor()) override;
  using Metric::operator();
  Tensor result() const override;
  std::string class_name() const override { return "RootMeanSquaredError"; }
  std::shared_ptr<Metric> clone() const override;
};

}  // namespace kiln::metrics
