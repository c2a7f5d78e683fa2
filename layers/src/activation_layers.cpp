// Activation, ReLU, Softmax, LeakyReLU, ELU, PReLU.
#include "kiln/layers/activation_layers.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "layer_utils.h"

namespace kiln::layers {

using namespace detail;

// ---- Activation ----
ActivationImpl::ActivationImpl(std::string activation, ActivationOptions o)
    : ElementwiseLayer(base_options(o)), activation_name_(std::move(activation)) {
  fn_ = activations::get(activation_name_);
  if (activation_name_.empty()) activation_name_ = "linear";
  apply_input_shape(*this, o);
}
Tensor ActivationImpl::call(const Tensor& x, bool) { return fn_(cast_input(x, dtype())); }
Config ActivationImpl::get_config() const {
  Config c = base_config();
  c["activation"] = activation_name_;
  add_declared_shape(*this, c);
  return c;
}
std::shared_ptr<ActivationImpl> ActivationImpl::from_config(const Config& config) {
  ConfigReader r("Activation", config);
  ActivationOptions o;
  r.base(o);
  return std::make_shared<ActivationImpl>(r.activation("activation", "linear"), std::move(o));
}

// ---- ReLU ----
ReLUImpl::ReLUImpl(ReLUOptions o) : ElementwiseLayer(base_options(o)), o_(std::move(o)) {
  if (o_.max_value && *o_.max_value < 0)
    throw ValueError("ReLU: `max_value` of a ReLU layer cannot be a negative value. Received: max_value=" +
                     std::to_string(*o_.max_value));
  if (o_.negative_slope < 0)
    throw ValueError("ReLU: `negative_slope` of a ReLU layer cannot be a negative value. Received: negative_slope=" +
                     std::to_string(o_.negative_slope));
  apply_input_shape(*this, o_);
}
Tensor ReLUImpl::call(const Tensor& input, bool) {
  Tensor x = cast_input(input, dtype());
  Tensor y;
  if (o_.negative_slope == 0 && o_.threshold == 0) {
    y = relu(x);
  } else {
    Tensor below = o_.negative_slope == 0 ? zeros_like(x) : (x - o_.threshold) * o_.negative_slope;
    y = where(x >= scalar_like(o_.threshold, x), x, below);
  }
  if (o_.max_value) y = minimum(y, scalar_like(*o_.max_value, y));
  return y;
}
Config ReLUImpl::get_config() const {
  Config c = base_config();
  c["max_value"] = o_.max_value ? Config(*o_.max_value) : Config(nullptr);
  c["negative_slope"] = o_.negative_slope;
  c["threshold"] = o_.threshold;
  add_declared_shape(*this, c);
  return c;
}
std::shared_ptr<ReLUImpl> ReLUImpl::from_config(const Config& config) {
  ConfigReader r("ReLU", config);
  ReLUOptions o;
  r.base(o);
  o.max_value = r.optional_number("max_value");
  o.negative_slope = r.number("negative_slope", 0.0);
  o.threshold = r.number("threshold", 0.0);
  return std::make_shared<ReLUImpl>(std::move(o));
}

// ---- Softmax ----
SoftmaxImpl::SoftmaxImpl(SoftmaxOptions o) : ElementwiseLayer(base_options(o)), o_(std::move(o)) {
  apply_input_shape(*this, o_);
}
Tensor SoftmaxImpl::call(const Tensor& x, bool) { return softmax(cast_input(x, dtype()), o_.axis); }
Config SoftmaxImpl::get_config() const {
  Config c = base_config();
  c["axis"] = o_.axis;
  add_declared_shape(*this, c);
  return c;
}
std::shared_ptr<SoftmaxImpl> SoftmaxImpl::from_config(const Config& config) {
  ConfigReader r("Softmax", config);
  SoftmaxOptions o;
  r.base(o);
  Axes a = r.axes("axis", -1);
  if (a.axes->size() != 1) throw ValueError("Softmax.from_config: only a single `axis` is supported, got " + config["axis"].dump());
  o.axis = (*a.axes)[0];
  return std::make_shared<SoftmaxImpl>(std::move(o));
}

// ---- LeakyReLU ----
LeakyReLUImpl::LeakyReLUImpl(double slope, ActivationOptions o) : ElementwiseLayer(base_options(o)), slope_(slope) {
  if (slope_ < 0)
    throw ValueError("LeakyReLU: the negative_slope value of a Leaky ReLU layer cannot be negative. Received: negative_slope=" +
                     std::to_string(slope_));
  apply_input_shape(*this, o);
}
Tensor LeakyReLUImpl::call(const Tensor& x, bool) { return activations::leaky_relu(cast_input(x, dtype()), slope_); }
Config LeakyReLUImpl::get_config() const {
  Config c = base_config();
  c["negative_slope"] = slope_;
  add_declared_shape(*this, c);
  return c;
}
std::shared_ptr<LeakyReLUImpl> LeakyReLUImpl::from_config(const Config& config) {
  ConfigReader r("LeakyReLU", config);
  ActivationOptions o;
  r.base(o);
  // tf.keras 2 called it alpha.
  double slope = r.has("negative_slope") ? r.number("negative_slope", 0.3) : r.number("alpha", 0.3);
  return std::make_shared<LeakyReLUImpl>(slope, std::move(o));
}

// ---- ELU ----
ELUImpl::ELUImpl(double alpha, ActivationOptions o) : ElementwiseLayer(base_options(o)), alpha_(alpha) {
  apply_input_shape(*this, o);
}
Tensor ELUImpl::call(const Tensor& x, bool) { return activations::elu(cast_input(x, dtype()), alpha_); }
Config ELUImpl::get_config() const {
  Config c = base_config();
  c["alpha"] = alpha_;
  add_declared_shape(*this, c);
  return c;
}
std::shared_ptr<ELUImpl> ELUImpl::from_config(const Config& config) {
  ConfigReader r("ELU", config);
  ActivationOptions o;
  r.base(o);
  return std::make_shared<ELUImpl>(r.number("alpha", 1.0), std::move(o));
}

// ---- PReLU ----
PReLUImpl::PReLUImpl(PReLUOptions o) : ElementwiseLayer(base_options(o)), o_(std::move(o)) {
  apply_input_shape(*this, o_);
}
void PReLUImpl::build(const Shape& s) {
  Shape param;
  for (int64_t i = 1; i < s.rank(); ++i) param.push_back(s[i]);
  for (int a : o_.shared_axes) {
    if (a < 1 || a >= s.rank())
      throw ValueError("Layer '" + name() + "' (PReLU): shared axis " + std::to_string(a) + " is out of range for input shape " +
                       s.to_string());
    param[a - 1] = 1;
  }
  for (int64_t i = 0; i < param.rank(); ++i)
    if (param[i] < 0)
      throw ValueError("Layer '" + name() + "' (PReLU): all non-shared input dimensions must be defined, but received input shape " +
                       s.to_string());
  alpha_ = add_weight("alpha", param,
                      {.initializer = o_.alpha_initializer, .regularizer = o_.alpha_regularizer,
                       .constraint = o_.alpha_constraint});
  InputSpec spec{.ndim = s.rank()};
  for (int64_t i = 1; i < s.rank(); ++i)
    if (param[i - 1] != 1 || s[i] == 1) spec.axes[i] = s[i];
  set_input_spec({spec});
}
Tensor PReLUImpl::call(const Tensor& input, bool) {
  Tensor x = cast_to_compute(input, dtype());
  return relu(x) - alpha_.value() * relu(-x);
}
Config PReLUImpl::get_config() const {
  Config c = base_config();
  c["alpha_initializer"] = serialize_initializer(o_.alpha_initializer);
  c["alpha_regularizer"] = serialize_regularizer(o_.alpha_regularizer);
  c["alpha_constraint"] = serialize_constraint(o_.alpha_constraint);
  c["shared_axes"] = o_.shared_axes.empty() ? Config(nullptr) : Config(o_.shared_axes);
  add_declared_shape(*this, c);
  return c;
}
std::shared_ptr<PReLUImpl> PReLUImpl::from_config(const Config& config) {
  ConfigReader r("PReLU", config);
  PReLUOptions o;
  r.base(o);
  o.alpha_initializer = r.initializer("alpha_initializer", o.alpha_initializer);
  o.alpha_regularizer = r.regularizer("alpha_regularizer");
  o.alpha_constraint = r.constraint("alpha_constraint");
  for (auto a : r.int_list("shared_axes")) o.shared_axes.push_back(static_cast<int>(a));
  return std::make_shared<PReLUImpl>(std::move(o));
}

}  // namespace kiln::layers
