#pragma once
/// @class kiln::metrics::CosineSimilarity
/// CosineSimilarity metric (keras.metrics.CosineSimilarity): Running mean of the cosine similarity along `axis`.
/// @code{.unparsed}
///   CosineSimilarity({.axis = 1}).update_state({{0, 1}, {1, 1}}, {{1, 0}, {1, 1}})  -> 0.5
/// @endcode
/// result(): a float32 scalar (the weighted running mean). Config: name, dtype, axis.
#include "kiln/core/fields.h"
#include "kiln/metrics/mean_metric_wrapper.h"

namespace kiln::metrics {

/// Per-sample cosine_similarity: sum(l2_normalize(y_true) * l2_normalize(y_pred), axis) (positive: 1 means the same direction).
Tensor cosine_similarity(const Tensor& y_true, const Tensor& y_pred, int axis = -1);

/// Options of CosineSimilarity (keras.metrics.CosineSimilarity's arguments and defaults).
struct CosineSimilarityOptions {
  int axis = -1;  ///< The axis the similarity is computed along.
  std::string name;  ///< Empty gives "cosine_similarity".
  DType dtype = DType::float32;  ///< The dtype of the result.
  KILN_FIELDS(CosineSimilarityOptions, axis)
};

class CosineSimilarity : public MeanMetricWrapper {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = CosineSimilarityOptions;
  /// Takes every setting from options (Keras's defaults).
  explicit CosineSimilarity(CosineSimilarityOptions options = {});
  std::string class_name() const override { return "CosineSimilarity"; }
  std::shared_ptr<Metric> clone() const override;
  /// options.axis.
  int axis() const { return o_.axis; }
  Config get_config() const override;

 private:
  CosineSimilarityOptions o_;
};

}  // namespace kiln::metrics
