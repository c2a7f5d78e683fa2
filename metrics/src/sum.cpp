#include "kiln/metrics/sum.h"

#include "kiln/ops/array_ops.h"
#include "kiln/metrics/mean.h"
#include "kiln/ops/reduce_ops.h"
#include "metric_config.h"

namespace kiln::metrics {

Sum::Sum(MetricOptions options) : Metric("sum", std::move(options)) { total_ = add_state("total", Shape{}); }

void Sum::update_state(const Tensor& values_in, const Tensor& sample_weight) {
  if (logged_update([=, this] { Sum::update_state(values_in, sample_weight); })) return;
  auto [values, sw] = reduce_to_samplewise_values(values_in, sample_weight, /*use_mean=*/false, dtype());
  total_.assign_add(sum(values));
}

void Sum::update_state(const Tensor&, const Tensor& y_pred, const Tensor& sample_weight) {
  update_state(y_pred, sample_weight);
}

Tensor Sum::operator()(double value) { return (*this)(Tensor(value)); }

Tensor Sum::operator()(const Tensor& values, const Tensor& sample_weight) {
  update_state(values, sample_weight);
  return result();
}

Tensor Sum::operator()(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight) {
  return Metric::operator()(y_true, y_pred, sample_weight);
}

Tensor Sum::result() const { return total_.read_value_untracked().clone(); }

std::shared_ptr<Metric> Sum::clone() const { return std::make_shared<Sum>(MetricOptions{name(), dtype()}); }

KILN_REGISTER_METRIC(Sum, "Sum", "sum")

}  // namespace kiln::metrics
