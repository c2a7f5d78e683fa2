#pragma once
/// @class kiln::metrics::MeanMetricWrapper
/// MeanMetricWrapper (keras.metrics.MeanMetricWrapper): the running mean of a
/// per-sample function fn(y_true, y_pred) -> (batch, ...), optionally weighted.
///
/// @code{.unparsed}
///   kiln::metrics::MeanMetricWrapper m(
///       [](const Tensor& t, const Tensor& p) { return kiln::mean(kiln::square(t - p), -1); }, "my_mse");
///   m(y_true, y_pred);
///   auto bce = kiln::metrics::MeanMetricWrapper::from_loss(kiln::losses::get("binary_crossentropy"),
///                                                          "binary_crossentropy");
/// @endcode
/// Accuracy, MeanSquaredError and the other per-sample metrics derive from it.
#include "kiln/training/loss.h"
#include "kiln/metrics/mean.h"

namespace kiln::metrics {

class MeanMetricWrapper : public Mean {
 public:
  /// The running mean of fn(y_true, y_pred); throws ValueError if fn is empty.
  MeanMetricWrapper(MetricFn fn, const std::string& name, DType dtype = DType::float32);
  /// Wraps a loss's per-sample call() (as Keras wraps loss functions); the
  /// loss's mask (e.g. ignore_class) is merged into the sample weights, and
  /// get_config()["fn"] holds the serialized loss so from_config rebuilds it.
  static std::shared_ptr<MeanMetricWrapper> from_loss(LossPtr loss, const std::string& name,
                                                      DType dtype = DType::float32);

  void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight = Tensor()) override;
  using Metric::operator();
  std::string class_name() const override { return "MeanMetricWrapper"; }
  Config get_config() const override;
  std::shared_ptr<Metric> clone() const override;

 protected:
  /// For subclasses whose fn is fixed by the class.
  MeanMetricWrapper(std::string default_name, MetricOptions options, MetricFn fn);

 private:
  MetricFn fn_;
  LossPtr loss_;
};

}  // namespace kiln::metrics
