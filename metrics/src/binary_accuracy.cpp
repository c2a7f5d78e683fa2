#include "kiln/metrics/binary_accuracy.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/number_text.h"
#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

Tensor binary_accuracy(const Tensor& y_true, const Tensor& y_pred, double threshold) {
  auto [t, p] = squeeze_or_expand_to_same_rank(y_true, y_pred);
  Tensor pf = is_floating(p.dtype()) ? p : cast(p, DType::float32);
  Tensor predicted = cast(greater(pf, scalar_like(threshold, pf)), t.dtype());
  return mean(cast(equal(t, predicted), DType::float32), -1);
}

BinaryAccuracy::BinaryAccuracy(BinaryAccuracyOptions o)
    : MeanMetricWrapper("binary_accuracy", MetricOptions{o.name, o.dtype},
                        [v = o.threshold](const Tensor& t, const Tensor& p) { return binary_accuracy(t, p, v); }),
      o_(o) {
  if (o_.threshold <= 0.0 || o_.threshold >= 1.0)
    throw ValueError("BinaryAccuracy: invalid value for argument `threshold`. Expected a value in interval (0, 1). "
                     "Received: threshold=" + kiln::detail::number_text(o_.threshold));
}

Config BinaryAccuracy::get_config() const { return detail::with_fields(base_config(), o_); }

std::shared_ptr<Metric> BinaryAccuracy::clone() const {
  BinaryAccuracyOptions o = o_;
  o.name = name();
  o.dtype = dtype();
  return std::make_shared<BinaryAccuracy>(o);
}

KILN_REGISTER_METRIC(BinaryAccuracy, "BinaryAccuracy", "binary_accuracy")

}  // namespace kiln::metrics
