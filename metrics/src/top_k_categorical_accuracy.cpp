#include "kiln/metrics/top_k_categorical_accuracy.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/metrics/sparse_top_k_categorical_accuracy.h"
#include "kiln/ops/reduce_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

Tensor top_k_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred, int k) {
  Tensor t = argmax(y_true, -1);
  Tensor matches = in_top_k(reshape(t, Shape{-1}), reshape(y_pred, Shape{-1, y_pred.shape()[-1]}), k);
  return reshape(matches, t.shape());
}

TopKCategoricalAccuracy::TopKCategoricalAccuracy(TopKCategoricalAccuracyOptions o)
    : MeanMetricWrapper("top_k_categorical_accuracy", MetricOptions{o.name, o.dtype},
                        [v = o.k](const Tensor& t, const Tensor& p) { return top_k_categorical_accuracy(t, p, v); }),
      o_(o) {}

Config TopKCategoricalAccuracy::get_config() const { return detail::with_fields(base_config(), o_); }

std::shared_ptr<Metric> TopKCategoricalAccuracy::clone() const {
  TopKCategoricalAccuracyOptions o = o_;
  o.name = name();
  o.dtype = dtype();
  return std::make_shared<TopKCategoricalAccuracy>(o);
}

KILN_REGISTER_METRIC(TopKCategoricalAccuracy, "TopKCategoricalAccuracy", "top_k_categorical_accuracy")

}  // namespace kiln::metrics
