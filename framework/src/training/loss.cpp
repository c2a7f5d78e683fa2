// Loss base: Keras 3's weighting and reduction (keras/src/losses/loss.py),
// the loss registry, and LossFunctionWrapper for plain functions.
#include "kiln/training/loss.h"

#include <nlohmann/json.hpp>

#include "kiln/nn/masking.h"
#include "core/op_log.h"

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "kiln/core/registry.h"

namespace kiln {

// ---- compile()'s loss argument ----

LossConfig::LossConfig() = default;
LossConfig::~LossConfig() = default;
LossConfig::LossConfig(const LossConfig&) = default;
LossConfig::LossConfig(LossConfig&&) noexcept = default;
LossConfig& LossConfig::operator=(const LossConfig&) = default;
LossConfig& LossConfig::operator=(LossConfig&&) noexcept = default;
LossConfig::LossConfig(const char* name) : single_(name) {}
LossConfig::LossConfig(std::string name) : single_(std::move(name)) {}
LossConfig::LossConfig(LossPtr p) : single_(std::move(p)) {}
LossConfig::LossConfig(LossFn fn) : single_(std::move(fn)) {}
LossConfig::LossConfig(std::initializer_list<std::pair<const std::string, LossArg>> by_name) : by_name_(by_name) {}
LossConfig::LossConfig(std::map<std::string, LossArg> by_name) : by_name_(std::move(by_name)) {}
LossConfig::LossConfig(std::vector<LossArg> by_position) : by_position_(std::move(by_position)) {}

// ---- reductions ----

std::string standardize_reduction(const std::string& reduction) {
  if (reduction.empty() || reduction == "none") return "none";
  if (reduction == "auto") return "sum_over_batch_size";  // tf.keras 2 spelling
  if (reduction == "sum_over_batch_size" || reduction == "sum" || reduction == "mean" ||
      reduction == "mean_with_sample_weight")
    return reduction;
  throw ValueError(
      "Invalid value for argument `reduction`. Expected one of {'sum_over_batch_size', 'sum', 'mean', "
      "'mean_with_sample_weight', 'none'}. Received: reduction='" +
      reduction + "'");
}

std::pair<Tensor, Tensor> squeeze_or_expand_to_same_rank(const Tensor& x1_in, const Tensor& x2_in,
                                                         bool expand_rank_1) {
  Tensor x1 = x1_in, x2 = x2_in;
  const int64_t r1 = x1.rank(), r2 = x2.rank();
  if (r1 == r2) return {x1, x2};
  if (r1 == r2 + 1 && x1.shape()[-1] == 1) {
    if (r2 == 1 && expand_rank_1)
      x2 = expand_dims(x2, -1);
    else
      x1 = squeeze(x1, {-1});
  }
  if (r2 == r1 + 1 && x2.shape()[-1] == 1) {
    if (r1 == 1 && expand_rank_1)
      x1 = expand_dims(x1, -1);
    else
      x2 = squeeze(x2, {-1});
  }
  return {x1, x2};
}

namespace {

// ops.divide_no_nan(a, b) with a scalar b, written so that its gradient is
// finite too (the unselected branch never divides by zero).
Tensor divide_no_nan_scalar(const Tensor& a, const Tensor& b) {
  Tensor zero = scalar_like(0.0, b);
  Tensor is_zero = equal(b, zero);
  Tensor safe_b = where(is_zero, scalar_like(1.0, b), b);
  return where(is_zero, zeros_like(a), divide(a, safe_b));
}

Tensor reduce_values(const Tensor& values, const Tensor& sample_weight, const std::string& reduction) {
  if (reduction == "none" || values.rank() == 0 || (values.rank() == 1 && values.shape()[0] == 0)) return values;
  Tensor loss = sum(values);
  if (reduction == "sum") return loss;
  if (reduction == "mean_with_sample_weight" && sample_weight.defined()) {
    // Divides by the sum of the weights broadcast to the losses' shape, so a
    // scalar weight gives the plain mean (Keras sums the un-broadcast weights).
    Tensor sw = broadcast_to(sample_weight, broadcast_shapes(sample_weight.shape(), values.shape(), "loss"));
    return divide_no_nan_scalar(loss, sum(sw));
  }
  const int64_t n = values.size();
  return n > 0 ? loss / static_cast<double>(n) : loss;
}

}  // namespace

Tensor reduce_weighted_loss(const Tensor& values_in, const Tensor& sample_weight, const std::string& reduction_in,
                            const Tensor& mask) {
  const std::string reduction = standardize_reduction(reduction_in);
  Tensor values = values_in;
  if (!is_floating(values.dtype())) values = cast(values, DType::float32);
  Tensor sw;
  if (sample_weight.defined()) sw = sample_weight.dtype() == values.dtype() ? sample_weight : cast(sample_weight, values.dtype());

  // apply_mask: merge the mask into the sample weights.
  if (mask.defined()) {
    Tensor m = cast(mask, values.dtype());
    if (reduction == "mean" || reduction == "sum_over_batch_size") {
      // Kept entries get weight total/kept, so mean(loss * m) is the mean over
      // kept entries: Keras's formula, with its epsilon (1e-7) for an all-masked
      // batch, in tensor ops so that a traced step computes it from each batch.
      const Tensor total = scalar_like(static_cast<double>(m.size()), m);
      m = m * (total / (sum(m) + 1e-7));
    }
    if (sw.defined()) {
      auto [mm, ss] = squeeze_or_expand_to_same_rank(m, sw);
      sw = ss * mm;
    } else {
      sw = m;
    }
  }

  if (sw.defined()) {
    auto [vv, ss] = squeeze_or_expand_to_same_rank(values, sw);
    values = vv * ss;
    sw = ss;
  }
  return reduce_values(values, sw, reduction);
}

Tensor reduce_weighted_loss(const Tensor& values, const Tensor& sample_weight, const std::string& reduction) {
  return reduce_weighted_loss(values, sample_weight, reduction, Tensor());
}

// ---- Loss ----

Loss::Loss(std::string default_name, LossOptions options)
    : name_(options.name.empty() ? std::move(default_name) : std::move(options.name)),
      reduction_(standardize_reduction(options.reduction)) {}

Tensor Loss::operator()(const Tensor& y_true, const Tensor& y_pred, const Tensor& sample_weight) const {
  if (oplog::logging())
    return oplog::run_logged(name_.c_str(), [this](const Tensor& t, const Tensor& p, const Tensor& w) {
      return (*this)(t, p, w);
    }, y_true, y_pred, sample_weight);
  if (!y_true.defined() || !y_pred.defined())
    throw ValueError("Loss '" + name_ + "': y_true and y_pred must both be defined tensors");
  // Keras converts both to the loss dtype, float32, so 16-bit outputs of a mixed
  // policy give float32 losses; we keep float64 predictions as float64 (tight
  // gradient checks) and bring y_true to y_pred's dtype.
  const DType pd = y_pred.dtype();
  Tensor yp = pd == DType::float32 || pd == DType::float64 ? y_pred : cast(y_pred, DType::float32);
  Tensor yt = y_true.dtype() == yp.dtype() ? y_true : cast(y_true, yp.dtype());
  Tensor values;
  try {
    values = call(yt, yp);
  } catch (const ShapeError& e) {
    // The op that failed knows only its own operands; say which loss it was computing, on what.
    throw ShapeError("Loss '" + name_ + "' cannot compare y_true of shape " + y_true.shape().to_string() +
                     " with y_pred of shape " + y_pred.shape().to_string() + ": " + e.what());
  }
  // Keras: the mask attached to y_pred (padded timesteps) and the loss's own
  // mask (ignore_class) both apply.
  Tensor mask = compute_mask(yt, yp);
  const Tensor in_mask = get_keras_mask(y_pred);
  if (in_mask.defined())
    mask = mask.defined() ? logical_and(cast(in_mask, DType::bool_), cast(mask, DType::bool_)) : in_mask;
  return reduce_weighted_loss(values, sample_weight, reduction_, mask);
}

Tensor Loss::compute_mask(const Tensor&, const Tensor&) const { return Tensor(); }

Config Loss::base_config() const {
  Config c = Config::object();
  c["name"] = name_;
  if (reduction_ == "none")
    c["reduction"] = nullptr;  // Keras writes None
  else
    c["reduction"] = reduction_;
  return c;
}

Config Loss::get_config() const { return base_config(); }

// ---- registry ----

namespace losses {
namespace detail {
void (*builtins_hook)() = nullptr;
}  // namespace detail

namespace {

using Factory = std::function<LossPtr(const Config&)>;

Registry<Factory>& registry() {
  static Registry<Factory> r("loss", &detail::builtins_hook);
  return r;
}

// LossFunctionWrapper: a (y_true, y_pred) -> per-sample function as a Loss.
class FunctionLoss : public Loss {
 public:
  FunctionLoss(LossFn fn, const std::string& name) : Loss(name, LossOptions{}), fn_(std::move(fn)) {}
  Tensor call(const Tensor& y_true, const Tensor& y_pred) const override {
    auto [yt, yp] = squeeze_or_expand_to_same_rank(y_true, y_pred);
    return fn_(yt, yp);
  }
  std::string class_name() const override { return "LossFunctionWrapper"; }

 private:
  LossFn fn_;
};

}  // namespace

void register_loss(const std::string& name, std::function<LossPtr(const Config&)> factory) {
  registry().add(name, std::move(factory));
}

std::vector<std::string> names() { return registry().names(); }

LossPtr get(const std::string& name) {
  return registry().get(name)(Config::object());  // unknown: NotFoundError listing close matches
}

LossPtr from_config(const Config& c) {
  if (c.is_string()) return get(c.get<std::string>());
  if (!c.is_object() || !c.contains("class_name") || !c["class_name"].is_string())
    throw ValueError("losses::from_config: expected {\"class_name\": ..., \"config\": {...}} or a name, received " +
                     c.dump());
  const std::string cls = c["class_name"].get<std::string>();
  Config inner = c.contains("config") && c["config"].is_object() ? c["config"] : Config::object();
  return registry().get(cls)(inner);
}

LossPtr from_function(LossFn fn, const std::string& name) {
  if (!fn) throw ValueError("losses::from_function: the function is empty");
  return std::make_shared<FunctionLoss>(std::move(fn), name);
}

Config serialize(const Loss& loss) {
  Config c = Config::object();
  c["module"] = "keras.losses";
  c["class_name"] = loss.class_name();
  c["config"] = loss.get_config();
  c["registered_name"] = nullptr;
  return c;
}

}  // namespace losses
}  // namespace kiln
