#include "kiln/metrics/accuracy.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

Tensor accuracy(const Tensor& y_true, const Tensor& y_pred) {
  Tensor yp = y_pred;
  Tensor yt = y_true.dtype() == yp.dtype() ? y_true : cast(y_true, yp.dtype());
  auto [t, p] = squeeze_or_expand_to_same_rank(yt, yp);
  return mean(cast(equal(t, p), DType::float32), -1);
}

Accuracy::Accuracy(MetricOptions o) : MeanMetricWrapper("accuracy", std::move(o), &accuracy) {}

std::shared_ptr<Metric> Accuracy::clone() const { return std::make_shared<Accuracy>(MetricOptions{name(), dtype()}); }

KILN_REGISTER_METRIC(Accuracy, "Accuracy", "accuracy", "acc", "ACC")

}  // namespace kiln::metrics
