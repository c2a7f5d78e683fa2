#pragma once
/// @class kiln::metrics::SparseTopKCategoricalAccuracy
/// SparseTopKCategoricalAccuracy metric (keras.metrics.SparseTopKCategoricalAccuracy): How often the integer target is in the top k predictions (k = 5).
/// @code{.unparsed}
///   SparseTopKCategoricalAccuracy({.k = 1}).update_state(Tensor({2, 1}), {{0.1, 0.9, 0.8}, {0.05, 0.95, 0}})  -> 0.5
/// @endcode
/// result(): a float32 scalar (the weighted running mean). Config: name, dtype, k.
#include "kiln/core/fields.h"
#include "kiln/metrics/mean_metric_wrapper.h"

namespace kiln::metrics {

/// Per-sample sparse_top_k_categorical_accuracy: 1 where the integer label is among the k largest y_pred: y_true (batch, ...) or (batch, ..., 1).
Tensor sparse_top_k_categorical_accuracy(const Tensor& y_true, const Tensor& y_pred, int k = 5);

/// keras.ops.in_top_k: targets (N,) integers, predictions (N, C) -> (N,) float32, 1 where the
/// target's score has fewer than k strictly larger scores (ties at the boundary count as in).
Tensor in_top_k(const Tensor& targets, const Tensor& predictions, int k);

/// Options of SparseTopKCategoricalAccuracy (keras.metrics.SparseTopKCategoricalAccuracy's arguments and defaults).
struct SparseTopKCategoricalAccuracyOptions {
  int k = 5;  ///< How many of the largest predictions count as a hit.
  std::string name;  ///< Empty gives "sparse_top_k_categorical_accuracy".
  DType dtype = DType::float32;  ///< The dtype of the result.
  KILN_FIELDS(SparseTopKCategoricalAccuracyOptions, k)
};

class SparseTopKCategoricalAccuracy : public MeanMetricWrapper {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = SparseTopKCategoricalAccuracyOptions;
  /// Takes every setting from options (Keras's defaults).
  explicit SparseTopKCategoricalAccuracy(SparseTopKCategoricalAccuracyOptions options = {});
  std::string class_name() const override { return "SparseTopKCategoricalAccuracy"; }
  bool runs_on_device() const override { return false; }  // counts on the host
  std::shared_ptr<Metric> clone() const override;
  /// options.k.
  int k() const { return o_.k; }
  Config get_config() const override;

 private:
  SparseTopKCategoricalAccuracyOptions o_;
};

}  // namespace kiln::metrics
