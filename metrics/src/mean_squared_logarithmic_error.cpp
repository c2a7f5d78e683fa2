#include "kiln/metrics/mean_squared_logarithmic_error.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

Tensor mean_squared_logarithmic_error(const Tensor& y_true, const Tensor& y_pred) {
  Tensor yp = as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(cast(y_true, yp.dtype()), yp);
  Tensor e = scalar_like(1e-7, p);
  return mean(square(log(maximum(p, e) + 1.0) - log(maximum(t, e) + 1.0)), -1);
}

MeanSquaredLogarithmicError::MeanSquaredLogarithmicError(MetricOptions o) : MeanMetricWrapper("mean_squared_logarithmic_error", std::move(o), &mean_squared_logarithmic_error) {}

std::shared_ptr<Metric> MeanSquaredLogarithmicError::clone() const { return std::make_shared<MeanSquaredLogarithmicError>(MetricOptions{name(), dtype()}); }

KILN_REGISTER_METRIC(MeanSquaredLogarithmicError, "MeanSquaredLogarithmicError", "mean_squared_logarithmic_error",
                     "msle", "MSLE")

}  // namespace kiln::metrics
