#include "kiln/metrics/mean_absolute_percentage_error.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

Tensor mean_absolute_percentage_error(const Tensor& y_true, const Tensor& y_pred) {
  Tensor yp = as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(cast(y_true, yp.dtype()), yp);
  return 100.0 * mean(abs((t - p) / maximum(abs(t), scalar_like(1e-7, p))), -1);
}

MeanAbsolutePercentageError::MeanAbsolutePercentageError(MetricOptions o) : MeanMetricWrapper("mean_absolute_percentage_error", std::move(o), &mean_absolute_percentage_error) {}

std::shared_ptr<Metric> MeanAbsolutePercentageError::clone() const { return std::make_shared<MeanAbsolutePercentageError>(MetricOptions{name(), dtype()}); }

KILN_REGISTER_METRIC(MeanAbsolutePercentageError, "MeanAbsolutePercentageError", "mean_absolute_percentage_error",
                     "mape", "MAPE")

}  // namespace kiln::metrics
