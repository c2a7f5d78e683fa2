#include "kiln/metrics/cosine_similarity.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

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
      o_(o) {}

Config CosineSimilarity::get_config() const { return detail::with_fields(base_config(), o_); }

std::shared_ptr<Metric> CosineSimilarity::clone() const {
  CosineSimilarityOptions o = o_;
  o.name = name();
  o.dtype = dtype();
  return std::make_shared<CosineSimilarity>(o);
}

KILN_REGISTER_METRIC(CosineSimilarity, "CosineSimilarity", "cosine_similarity")

}  // namespace kiln::metrics
