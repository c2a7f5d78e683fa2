#include "kiln/metrics/mean_squared_error.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

Tensor mean_squared_error(const Tensor& y_true, const Tensor& y_pred) {
  Tensor yp = as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(cast(y_true, yp.dtype()), yp);
  return mean(square(t - p), -1);
}

MeanSquaredError::MeanSquaredError(MetricOptions o) : MeanMetricWrapper("mean_squared_error", std::move(o), &mean_squared_error) {}

std::shared_ptr<Metric> MeanSquaredError::clone() const { return std::make_shared<MeanSquaredError>(MetricOptions{name(), dtype()}); }

KILN_REGISTER_METRIC(MeanSquaredError, "MeanSquaredError", "mean_squared_error", "mse", "MSE")

}  // namespace kiln::metrics
