#pragma once
/// @class kiln::metrics::Sum
/// Sum metric (keras.metrics.Sum): the running, optionally weighted, sum.
///
/// @code{.unparsed}
///   kiln::metrics::Sum m;
///   m.update_state(Tensor({1.f, 3.f, 5.f, 7.f}));                           // 16
///   m.update_state(Tensor({1.f, 3.f, 5.f, 7.f}), Tensor({1.f, 1.f, 0.f, 0.f}));  // + 4
/// @endcode
/// result(): a float32 scalar. State: "total".
#include "kiln/training/metric.h"

namespace kiln::metrics {

class Sum : public Metric {
 public:
  /// options.name defaults to "sum", options.dtype to float32.
  explicit Sum(MetricOptions options = {});
  /// Adds sum(values * sample_weight) (the weights broadcast against the values).
  void update_state(const Tensor& values, const Tensor& sample_weight = Tensor());
  /// The Metric interface: sums y_pred (y_true is ignored).
  void update_state(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight) override;
  /// @name Calling
  //@{
  /// update_state with the same arguments, then result() (calling a metric accumulates, as in Keras).
  Tensor operator()(double value);
  Tensor operator()(const Tensor& values, const Tensor& sample_weight = Tensor());
  Tensor operator()(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight);
  //@}
  Tensor result() const override;
  std::string class_name() const override { return "Sum"; }
  std::shared_ptr<Metric> clone() const override;

 private:
  Variable total_;
};

}  // namespace kiln::metrics
