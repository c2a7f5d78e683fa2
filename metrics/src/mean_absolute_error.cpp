#include "kiln/metrics/mean_absolute_error.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

Tensor mean_absolute_error(const Tensor& y_true, const Tensor& y_pred) {
  Tensor yp = as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(cast(y_true, yp.dtype()), yp);
  return mean(abs(t - p), -1);
}

MeanAbsoluteError::MeanAbsoluteError(MetricOptions o) : MeanMetricWrapper("mean_absolute_error", std::move(o), &mean_absolute_error) {}

std::shared_ptr<Metric> MeanAbsoluteError::clone() const { return std::make_shared<MeanAbsoluteError>(MetricOptions{name(), dtype()}); }

KILN_REGISTER_METRIC(MeanAbsoluteError, "MeanAbsoluteError", "mean_absolute_error", "mae", "MAE")

}  // namespace kiln::metrics
