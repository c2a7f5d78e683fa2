#include "kiln/metrics/log_cosh_error.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

Tensor log_cosh(const Tensor& y_true, const Tensor& y_pred) {
  Tensor yp = as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(cast(y_true, yp.dtype()), yp);
  Tensor x = p - t;
  return mean(x + softplus(x * -2.0) - std::log(2.0), -1);
}

LogCoshError::LogCoshError(MetricOptions o) : MeanMetricWrapper("logcosh", std::move(o), &log_cosh) {}

std::shared_ptr<Metric> LogCoshError::clone() const { return std::make_shared<LogCoshError>(MetricOptions{name(), dtype()}); }

KILN_REGISTER_METRIC(LogCoshError, "LogCoshError", "log_cosh_error", "logcosh", "log_cosh")

}  // namespace kiln::metrics
