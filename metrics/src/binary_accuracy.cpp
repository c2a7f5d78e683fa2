#include "kiln/metrics/binary_accuracy.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln::metrics {

namespace {
[[maybe_unused]] Tensor as_float(const Tensor& x) { return is_floating(x.dtype()) ? x : cast(x, DType::float32); }
}  // namespace

Tensor binary_accuracy(const Tensor& y_true, const Tensor& y_pred, double threshold) {
  auto [t, p] = squeeze_or_expand_to_same_rank(y_true, y_pred);
  Tensor pf = is_floating(p.dtype()) ? p : cast(p, DType::float32);
  Tensor predicted = cast(greater(pf, scalar_like(threshold, pf)), t.dtype());
  return mean(cast(equal(t, predicted), DType::float32), -1);
}

BinaryAccuracy::BinaryAccuracy(BinaryAccuracyOptions o)
    : MeanMetricWrapper("binary_accuracy", MetricOptions{o.name, o.dtype},
                        [v = o.threshold](const Tensor& t, const Tensor& p) { return binary_accuracy(t, p, v); }),
      threshold_(o.threshold) {
  if (threshold_ <= 0.0 || threshold_ >= 1.0)
    throw ValueError("BinaryAccuracy: invalid value for argument `threshold`. Expected a value in interval (0, 1). "
                     "Received: threshold=" + std::to_string(threshold_));
}

Config BinaryAccuracy::get_config() const {
  Config c = base_config();
  c["threshold"] = threshold_;
  return c;
}

std::shared_ptr<Metric> BinaryAccuracy::clone() const { return std::make_shared<BinaryAccuracy>(BinaryAccuracyOptions{threshold_, name(), dtype()}); }

}  // namespace kiln::metrics
