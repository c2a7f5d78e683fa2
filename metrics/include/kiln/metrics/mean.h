#pragma once
/// @class kiln::metrics::Mean
/// Mean metric (keras.metrics.Mean): the running, optionally weighted, mean.
///
/// @code{.unparsed}
///   result = total / count, with total += sum(values * w) and count += sum(w)
///   (count += batch size when unweighted). Values of rank > 1 are first
///   averaged down to one value per sample (per weight entry when weighted).
/// @endcode
///
/// @code{.unparsed}
///   kiln::metrics::Mean m;
///   m(0); m(5);                 // 2.5
///   m(Tensor({8.f, 9.f}));      // (0 + 5 + 8 + 9) / 4 = 5.5
///   m.update_state(Tensor({1.f, 3.f}), Tensor({1.f, 0.f}));  // weighted
/// @endcode
/// result(): a float32 scalar. State: "total", "count".
#include "kiln/training/metric.h"

namespace kiln::metrics {

class Mean : public Metric {
 public:
  /// options.name defaults to "mean", options.dtype to float32.
  explicit Mean(MetricOptions options = {});
  /// Accumulates `values` weighted by `sample_weight` (broadcast against the values).
  void update_state(const Tensor& values, const Tensor& sample_weight = Tensor());
  /// The Metric interface: averages y_pred (y_true is ignored), so a Mean can
  /// track a loss value: tracker.update_state(Tensor(), loss, batch_size).
  void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight) override;
  /// @name Calling
  //@{
  /// update_state with the same arguments, then result() (calling a metric accumulates, as in Keras).
  Tensor operator()(double value);
  Tensor operator()(const Tensor& values, const Tensor& sample_weight = Tensor());
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight);
  //@}
  Tensor result() const override;
  std::string class_name() const override { return "Mean"; }
  std::shared_ptr<Metric> clone() const override;

 protected:
  /// For subclasses: default_name is used when options.name is empty.
  Mean(std::string default_name, MetricOptions options);

 private:
  Variable total_, count_;
};

/// keras.metrics.reduction_metrics.reduce_to_samplewise_values: casts to
/// `dtype`, squeezes/expands the weights to the values' rank, reduces the
/// values (with `mean` or `sum`) to the weights' rank, multiplies, and reduces
/// both to one entry per sample. Returns {values, sample_weight}.
std::pair<Tensor, Tensor> reduce_to_samplewise_values(const Tensor& values, const Tensor& sample_weight,
                                                      bool use_mean, DType dtype);

}  // namespace kiln::metrics
