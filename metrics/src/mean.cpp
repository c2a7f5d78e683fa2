#include "kiln/metrics/mean.h"

#include "kiln/ops/array_ops.h"
#include "kiln/training/loss.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

std::pair<Tensor, Tensor> reduce_to_samplewise_values(const Tensor& values_in, const Tensor& sample_weight,
                                                      bool use_mean, DType dtype) {
  auto reduce = [use_mean](const Tensor& x, int from) {
    std::vector<int> axes;
    for (int i = from; i < x.rank(); ++i) axes.push_back(i);
    return use_mean ? mean(x, axes) : sum(x, axes);
  };
  // Metrics never need gradients: detach so nothing is recorded on an active tape.
  Tensor values = cast(stop_gradient(values_in), dtype);
  Tensor sw;
  if (sample_weight.defined()) {
    sw = cast(stop_gradient(sample_weight), dtype);
    auto [v, w] = squeeze_or_expand_to_same_rank(values, sw);
    values = v;
    sw = w;
    const int64_t weight_ndim = sw.rank(), values_ndim = values.rank();
    if (values_ndim > weight_ndim) values = reduce(values, static_cast<int>(weight_ndim));
    // Broadcast the weights: no change to the product, but the count sums them all.
    sw = broadcast_to(sw, values.shape());
    values = values * sw;
    if (weight_ndim > 1) sw = reduce(sw, 1);
  }
  if (values.rank() > 1) values = reduce(values, 1);
  return {values, sw};
}

Mean::Mean(MetricOptions options) : Mean("mean", std::move(options)) {}

Mean::Mean(std::string default_name, MetricOptions options) : Metric(std::move(default_name), std::move(options)) {
  total_ = add_state("total", Shape{});
  count_ = add_state("count", Shape{});
}

void Mean::update_state(const Tensor& values_in, const Tensor& sample_weight) {
  if (logged_update([=, this] { Mean::update_state(values_in, sample_weight); })) return;
  auto [values, sw] = reduce_to_samplewise_values(values_in, sample_weight, /*use_mean=*/true, dtype());
  total_.assign_add(sum(values));
  if (sw.defined())
    count_.assign_add(sum(sw));
  else
    count_.assign_add(scalar_like(values.rank() >= 1 ? static_cast<double>(values.shape()[0]) : 1.0, values));
}

void Mean::update_state(const Tensor&, const Tensor& y_pred, const Tensor& sample_weight) {
  update_state(y_pred, sample_weight);
}

Tensor Mean::operator()(double value) { return (*this)(Tensor(value)); }

Tensor Mean::operator()(const Tensor& values, const Tensor& sample_weight) {
  update_state(values, sample_weight);
  return result();
}

Tensor Mean::operator()(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight) {
  return Metric::operator()(y_true, y_pred, sample_weight);
}

Tensor Mean::result() const {
  // divide_no_nan in the state's dtype, as Keras computes it: an empty metric
  // reads 0. Tensor ops, so a traced train step returns it without reading it.
  const Tensor total = total_.read_value_untracked(), count = count_.read_value_untracked();
  const Tensor zero = zeros_like(count);
  const Tensor empty = equal(count, zero);
  return cast(where(empty, zero, divide(total, where(empty, ones_like(count), count))), dtype());
}

std::shared_ptr<Metric> Mean::clone() const { return std::make_shared<Mean>(MetricOptions{name(), dtype()}); }

KILN_REGISTER_METRIC(Mean, "Mean", "mean")

}  // namespace kiln::metrics
