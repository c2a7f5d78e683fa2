#pragma once
/// @class kiln::metrics::BinaryAccuracy
/// BinaryAccuracy metric (keras.metrics.BinaryAccuracy): How often thresholded predictions match binary labels (threshold 0.5).
/// @code{.unparsed}
///   m.update_state({{1}, {1}, {0}, {0}}, {{0.98}, {1}, {0}, {0.6}})  -> 0.75
/// @endcode
/// result(): a float32 scalar (the weighted running mean). Config: name, dtype, threshold.
#include "kiln/core/fields.h"
#include "kiln/metrics/mean_metric_wrapper.h"

namespace kiln::metrics {

/// Per-sample binary_accuracy: 1 where (y_pred > threshold) equals y_true, averaged over the last axis.
Tensor binary_accuracy(const Tensor& y_true, const Tensor& y_pred, double threshold = 0.5);

/// Options of BinaryAccuracy (keras.metrics.BinaryAccuracy's arguments and defaults).
struct BinaryAccuracyOptions {
  double threshold = 0.5;  ///< A prediction counts as 1 where y_pred > threshold.
  std::string name;  ///< Empty gives "binary_accuracy".
  DType dtype = DType::float32;  ///< The dtype of the result.
  KILN_FIELDS(BinaryAccuracyOptions, threshold)
};

class BinaryAccuracy : public MeanMetricWrapper {
 public:
  /// The options struct (generic code builds Options{...}).
  using Options = BinaryAccuracyOptions;
  /// Takes every setting from options (Keras's defaults).
  explicit BinaryAccuracy(BinaryAccuracyOptions options = {});
  std::string class_name() const override { return "BinaryAccuracy"; }
  std::shared_ptr<Metric> clone() const override;
  /// options.threshold.
  double threshold() const { return o_.threshold; }
  Config get_config() const override;

 private:
  BinaryAccuracyOptions o_;
};

}  // namespace kiln::metrics
