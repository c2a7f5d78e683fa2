#include "kiln/metrics/root_mean_squared_error.h"

#include "kiln/ops/array_ops.h"
#include "kiln/training/loss.h"
#include "kiln/ops/math_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

RootMeanSquaredError::RootMeanSquaredError(MetricOptions options)
    : Mean("root_mean_squared_error", std::move(options)) {}

void RootMeanSquaredError::update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight) {
  if (logged_update([=, this] { RootMeanSquaredError::update_state(y_true, y_pred, sample_weight); })) return;
  Tensor yp = cast(stop_gradient(y_pred), dtype());
  Tensor yt = cast(stop_gradient(y_true), dtype());
  auto [t, p] = squeeze_or_expand_to_same_rank(yt, yp);
  Mean::update_state(square(p - t), sample_weight);
}

Tensor RootMeanSquaredError::result() const { return sqrt(Mean::result()); }

std::shared_ptr<Metric> RootMeanSquaredError::clone() const {
  return std::make_shared<RootMeanSquaredError>(MetricOptions{name(), dtype()});
}

KILN_REGISTER_METRIC(RootMeanSquaredError, "RootMeanSquaredError", "root_mean_squared_error", "rmse", "RMSE")

}  // namespace kiln::metrics
