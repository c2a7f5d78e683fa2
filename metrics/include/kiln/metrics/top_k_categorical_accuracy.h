#pragma once
/// @class kiln::metrics::TopKCategoricalAccuracy
/// TopKCategoricalAccuracy metric (keras.metrics.TopKCategoricalAccuracy): How often the one-hot target is in the top k predictions (k = 5).
/// @code{.unparsed}
///   TopKCategoricalAccuracy({.k = 1}).update_state({{0, 0, 1}, {0, 1, 0}}, {{0.1, 0.9, 0.8}, {0.05, 0.95, 0}})  -> 0.5
/// @endcode
/// result(): a float32 scalar (the weighted running mean). Config: name, dtype, k.
#include "kiln/core/fields.h"
#include "kiln/metrics/mean_metric_wrapper.h"

namespace kiln::metrics {

/// Per-sample top_k_categorical_accuracy: 1 where argmax(y_true) is among the k largest y_pred (ties at the boundary count as in): (batch, ..., C) -> (batch, ...).
Tensor top_k_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred, int k = 5);

/// Options of TopKCategoricalAccuracy (keras.metrics.TopKCategoricalAccuracy's arguments and defaults).
struct TopKCategoricalAccuracyOptions {
  int k = 5;  ///< How many of the largest predictions count as a hit.
  std::string name;  ///< Empty gives "top_k_categorical_accuracy".
  DType dtype = DType::float32;  ///< The dtype of the result.
  KILN_FIELDS(TopKCategoricalAccuracyOptions, k)
};

class TopKCategoricalAccuracy : public MeanMetricWrapper {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = TopKCategoricalAccuracyOptions;
  /// Takes every setting from options (Keras's defaults).
  explicit TopKCategoricalAccuracy(TopKCategoricalAccuracyOptions options = {});
  std::string class_name() const override { return "TopKCategoricalAccuracy"; }
  bool runs_on_device() const override { return false; }  // counts on the host
  std::shared_ptr<Metric> clone() const override;
  /// options.k.
  int k() const { return o_.k; }
  Config get_config() const override;

 private:
  TopKCategoricalAccuracyOptions o_;
};

}  // namespace kiln::metrics
