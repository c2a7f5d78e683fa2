#include "kiln/metrics/mean_metric_wrapper.h"

#include <nlohmann/json.hpp>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"

namespace kiln::metrics {

MeanMetricWrapper::MeanMetricWrapper(MetricFn fn, const std::string& name, DType dtype)
    : Mean(name.empty() ? std::string("mean_metric_wrapper") : name, MetricOptions{name, dtype}), fn_(std::move(fn)) {
  if (!fn_) throw ValueError("MeanMetricWrapper '" + this->name() + "': the function is empty");
}

MeanMetricWrapper::MeanMetricWrapper(std::string default_name, MetricOptions options, MetricFn fn)
    : Mean(std::move(default_name), std::move(options)), fn_(std::move(fn)) {}

std::shared_ptr<MeanMetricWrapper> MeanMetricWrapper::from_loss(LossPtr loss, const std::string& name, DType dtype) {
  if (!loss) throw ValueError("MeanMetricWrapper::from_loss: the loss is null");
  LossPtr l = loss;
  auto m = std::make_shared<MeanMetricWrapper>(
      [l](const Tensor& y_true, const Tensor& y_pred) {
        // Same conversions as Loss::operator(): float predictions, targets in their dtype.
        Tensor yp = is_floating(y_pred.dtype()) ? y_pred : cast(y_pred, DType::float32);
        Tensor yt = y_true.dtype() == yp.dtype() ? y_true : cast(y_true, yp.dtype());
        return l->call(yt, yp);
      },
      name.empty() ? loss->name() : name, dtype);
  m->loss_ = loss;
  return m;
}

void MeanMetricWrapper::update_state(const Tensor& y_true_in, const Tensor& y_pred_in, const Tensor& sample_weight) {
  // Metrics never need gradients: detach so nothing is recorded on an active tape.
  Tensor y_true = stop_gradient(y_true_in), y_pred = stop_gradient(y_pred_in);
  Tensor values = fn_(y_true, y_pred);
  Tensor sw = sample_weight;
  if (loss_) {
    Tensor yp = is_floating(y_pred.dtype()) ? y_pred : cast(y_pred, DType::float32);
    Tensor mask = loss_->compute_mask(y_true.dtype() == yp.dtype() ? y_true : cast(y_true, yp.dtype()), yp);
    if (mask.defined()) {
      // apply_mask with reduction "sum": masked entries get weight 0.
      Tensor m = cast(mask, dtype());
      if (sw.defined()) {
        auto [mm, ss] = squeeze_or_expand_to_same_rank(m, cast(sw, dtype()));
        sw = ss * mm;
      } else {
        sw = m;
      }
    }
  }
  Mean::update_state(values, sw);
}

Config MeanMetricWrapper::get_config() const {
  Config c = base_config();
  if (loss_) c["fn"] = losses::serialize(*loss_);
  return c;
}

std::shared_ptr<Metric> MeanMetricWrapper::clone() const {
  if (loss_) return from_loss(loss_, name(), dtype());
  return std::make_shared<MeanMetricWrapper>(fn_, name(), dtype());
}

}  // namespace kiln::metrics
