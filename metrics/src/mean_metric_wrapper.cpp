#include "kiln/metrics/mean_metric_wrapper.h"

#include <nlohmann/json.hpp>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/nn/masking.h"
#include "metric_config.h"

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
  if (logged_update([=, this] { MeanMetricWrapper::update_state(y_true_in, y_pred_in, sample_weight); })) return;
  // Metrics never need gradients: detach so nothing is recorded on an active tape.
  Tensor y_true = stop_gradient(y_true_in), y_pred = stop_gradient(y_pred_in);
  Tensor values = fn_(y_true, y_pred);
  Tensor sw = sample_weight;
  // Keras: the mask attached to y_pred (padded timesteps) weighs entries 0 or 1.
  Tensor mask = get_keras_mask(y_pred_in);
  if (loss_) {
    Tensor yp = is_floating(y_pred.dtype()) ? y_pred : cast(y_pred, DType::float32);
    Tensor own = loss_->compute_mask(y_true.dtype() == yp.dtype() ? y_true : cast(y_true, yp.dtype()), yp);
    if (own.defined()) mask = mask.defined() ? logical_and(cast(mask, DType::bool_), cast(own, DType::bool_)) : own;
  }
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
  Mean::update_state(values, sw);
}

Config MeanMetricWrapper::get_config() const {
  Config c = base_config();
  if (loss_) c["fn"] = losses::serialize(*loss_);
  return c;
}

namespace {

// Only wrappers of a loss can be rebuilt: config["fn"] holds the serialized loss.
MetricPtr wrapper_from_config(const Config& c) {
  config_io::ConfigReader r("MeanMetricWrapper", c);
  if (!r.has("fn"))
    throw ValueError("MeanMetricWrapper.from_config: only wrappers of a loss can be rebuilt (config['fn'] holds "
                     "the serialized loss); received " + c.dump());
  MetricOptions o = detail::read_metric_options<MeanMetricWrapper>(r);
  return MeanMetricWrapper::from_loss(losses::from_config(c["fn"]), o.name, o.dtype);
}

// A loss name used as a metric: the running mean of the loss's per-sample
// values; the loss's own keys configure the loss.
detail::MetricFactory loss_metric(const std::string& loss_class, const std::string& default_name) {
  return [loss_class, default_name](const Config& c) -> MetricPtr {
    config_io::ConfigReader r(loss_class, c);
    MetricOptions o = detail::read_metric_options<MeanMetricWrapper>(r);
    Config loss_cfg = c;
    loss_cfg.erase("name");
    loss_cfg.erase("dtype");
    LossPtr loss = losses::from_config(Config{{"class_name", loss_class}, {"config", loss_cfg}});
    return MeanMetricWrapper::from_loss(loss, o.name.empty() ? default_name : o.name, o.dtype);
  };
}

}  // namespace

std::shared_ptr<Metric> MeanMetricWrapper::clone() const {
  if (loss_) return from_loss(loss_, name(), dtype());
  return std::make_shared<MeanMetricWrapper>(fn_, name(), dtype());
}

KILN_REGISTER_METRIC_FACTORY(MeanMetricWrapper, wrapper_from_config, "MeanMetricWrapper", "mean_metric_wrapper")
// Loss names as metrics (Keras's probabilistic and hinge metrics, and loss functions).
KILN_REGISTER_METRIC_FACTORY(BinaryCrossentropy, loss_metric("BinaryCrossentropy", "binary_crossentropy"),
                             "BinaryCrossentropy", "binary_crossentropy", "bce", "BCE")
KILN_REGISTER_METRIC_FACTORY(CategoricalCrossentropy,
                             loss_metric("CategoricalCrossentropy", "categorical_crossentropy"),
                             "CategoricalCrossentropy", "categorical_crossentropy", "cce", "CCE")
KILN_REGISTER_METRIC_FACTORY(SparseCategoricalCrossentropy,
                             loss_metric("SparseCategoricalCrossentropy", "sparse_categorical_crossentropy"),
                             "SparseCategoricalCrossentropy", "sparse_categorical_crossentropy", "scce")
KILN_REGISTER_METRIC_FACTORY(KLDivergence, loss_metric("KLDivergence", "kl_divergence"), "KLDivergence",
                             "kl_divergence", "kld", "KLD", "kullback_leibler_divergence")
KILN_REGISTER_METRIC_FACTORY(Poisson, loss_metric("Poisson", "poisson"), "Poisson", "poisson")
KILN_REGISTER_METRIC_FACTORY(Hinge, loss_metric("Hinge", "hinge"), "Hinge", "hinge")
KILN_REGISTER_METRIC_FACTORY(SquaredHinge, loss_metric("SquaredHinge", "squared_hinge"), "SquaredHinge",
                             "squared_hinge")
KILN_REGISTER_METRIC_FACTORY(CategoricalHinge, loss_metric("CategoricalHinge", "categorical_hinge"),
                             "CategoricalHinge", "categorical_hinge")
KILN_REGISTER_METRIC_FACTORY(Huber, loss_metric("Huber", "huber"), "huber")
KILN_REGISTER_METRIC_FACTORY(BinaryFocalCrossentropy,
                             loss_metric("BinaryFocalCrossentropy", "binary_focal_crossentropy"),
                             "binary_focal_crossentropy")
KILN_REGISTER_METRIC_FACTORY(CategoricalFocalCrossentropy,
                             loss_metric("CategoricalFocalCrossentropy", "categorical_focal_crossentropy"),
                             "categorical_focal_crossentropy")

}  // namespace kiln::metrics
