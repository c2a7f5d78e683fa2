#include "kiln/metrics/sparse_top_k_categorical_accuracy.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

Tensor in_top_k(const Tensor& targets, const Tensor& predictions, int k) {
  if (predictions.rank() != 2 || targets.rank() != 1 || targets.shape()[0] != predictions.shape()[0])
    throw ShapeError("in_top_k: expected targets (N,) and predictions (N, C), but received " +
                     targets.shape().to_string() + " and " + predictions.shape().to_string());
  const int64_t n = predictions.shape()[0], c = predictions.shape()[1];
  const auto scores = predictions.to_vector<double>();
  const auto labels = targets.to_vector<double>();
  std::vector<float> out(static_cast<std::size_t>(n), 0.f);
  for (int64_t i = 0; i < n; ++i) {
    const double lab = labels[static_cast<std::size_t>(i)];
    if (lab < 0 || lab >= static_cast<double>(c)) continue;  // out-of-range targets are never in the top k
    const double* row = scores.data() + i * c;
    const double target = row[static_cast<int64_t>(lab)];
    if (!std::isfinite(target)) continue;
    int64_t larger = 0;
    for (int64_t j = 0; j < c; ++j) larger += row[j] > target;
    out[static_cast<std::size_t>(i)] = larger < k ? 1.f : 0.f;
  }
  return Tensor(out, Shape{n});
}

Tensor sparse_top_k_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred, int k) {
  Tensor matches = in_top_k(reshape(y_true, Shape{-1}), reshape(y_pred, Shape{-1, y_pred.shape()[-1]}), k);
  return reshape(matches, y_true.shape());
}

SparseTopKCategoricalAccuracy::SparseTopKCategoricalAccuracy(SparseTopKCategoricalAccuracyOptions o)
    : MeanMetricWrapper("sparse_top_k_categorical_accuracy", MetricOptions{o.name, o.dtype},
                        [v = o.k](const Tensor& t, const Tensor& p) { return sparse_top_k_categorical_accuracy(t, p, v); }),
      o_(o) {}

Config SparseTopKCategoricalAccuracy::get_config() const { return detail::with_fields(base_config(), o_); }

std::shared_ptr<Metric> SparseTopKCategoricalAccuracy::clone() const {
  SparseTopKCategoricalAccuracyOptions o = o_;
  o.name = name();
  o.dtype = dtype();
  return std::make_shared<SparseTopKCategoricalAccuracy>(o);
}

KILN_REGISTER_METRIC(SparseTopKCategoricalAccuracy, "SparseTopKCategoricalAccuracy",
                     "sparse_top_k_categorical_accuracy")

}  // namespace kiln::metrics
