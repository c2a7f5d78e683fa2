#include "kiln/metrics/sparse_categorical_accuracy.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

Tensor sparse_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred) {
  Tensor t = y_true;
  if (t.rank() == y_pred.rank() && t.rank() > 0 && t.shape()[-1] == 1) t = squeeze(t, {-1});
  Tensor p = argmax(y_pred, -1);
  // Keras casts the argmax to the labels' dtype (float labels compare as floats).
  if (p.dtype() != t.dtype()) p = cast(p, t.dtype());
  Tensor matches = cast(equal(t, p), DType::float32);
  if (matches.rank() > 1 && matches.shape()[-1] == 1) matches = squeeze(matches, {-1});
  return matches;
}

SparseCategoricalAccuracy::SparseCategoricalAccuracy(MetricOptions o) : MeanMetricWrapper("sparse_categorical_accuracy", std::move(o), &sparse_categorical_accuracy) {}

std::shared_ptr<Metric> SparseCategoricalAccuracy::clone() const { return std::make_shared<SparseCategoricalAccuracy>(MetricOptions{name(), dtype()}); }

KILN_REGISTER_METRIC(SparseCategoricalAccuracy, "SparseCategoricalAccuracy", "sparse_categorical_accuracy")

}  // namespace kiln::metrics
