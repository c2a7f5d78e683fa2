#include "kiln/metrics/categorical_accuracy.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

Tensor categorical_accuracy(const Tensor& y_true, const Tensor& y_pred) {
  Tensor t = argmax(y_true, -1);
  Tensor p = argmax(y_pred, -1);
  return cast(equal(t, p), DType::float32);
}

CategoricalAccuracy::CategoricalAccuracy(MetricOptions o) : MeanMetricWrapper("categorical_accuracy", std::move(o), &categorical_accuracy) {}

std::shared_ptr<Metric> CategoricalAccuracy::clone() const { return std::make_shared<CategoricalAccuracy>(MetricOptions{name(), dtype()}); }

KILN_REGISTER_METRIC(CategoricalAccuracy, "CategoricalAccuracy", "categorical_accuracy")

}  // namespace kiln::metrics
