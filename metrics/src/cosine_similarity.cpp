#include "kiln/metrics/cosine_similarity.h"

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

Tensor cosine_similarity(const Tensor& y_true, const Tensor& y_pred, int axis) {
  Tensor yp = as_float(y_pred);
  auto [t, p] = squeeze_or_expand_to_same_rank(cast(y_true, yp.dtype()), yp);
  auto normalize = [axis](const Tensor& x) {
    Tensor s = sum(square(x), axis, true);
    return x * rsqrt(maximum(s, scalar_like(1e-14, s)));  // x * min(1/||x||, 1/1e-7), as keras.ops.normalize
  };
  return sum(normalize(t) * normalize(p), axis);
}

CosineSimilarity::CosineSimilarity(CosineSimilarityOptions o)
    : MeanMetricWrapper("cosine_similarity", MetricOptions{o.name, o.dtype},
                        [v = o.axis](const Tensor& t, const Tensor& p) { return cosine_similarity(t, p, v); }),
      axis_(o.axis) {}

Config CosineSimilarity::get_config() const {
  Config c = base_config();
  c["axis"] = axis_;
  return c;
}

std::shared_ptr<Metric> CosineSimilarity::clone() const { return std::make_shared<CosineSimilarity>(CosineSimilarityOptions{axis_, name(), dtype()}); }

}  // namespace kiln::metrics
