// Activation, ReLU, Softmax, LeakyReLU, ELU, PReLU.
#include "kiln/layers/activation_layers.h"

#include "core/number_text.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "config_fields.h"
#include "legacy_config.h"

namespace kiln::layers {

using namespace detail;

// ---- Activation ----
ActivationImpl::ActivationImpl(std::string activation, ActivationOptions o)
    : ElementwiseLayer(base_options(o)), activation_(std::move(activation)), o_(std::move(o)) {
  fn_ = activations::get(activation_);
  if (activation_.empty()) activation_ = "linear";
  apply_input_shape(*this, o_);
}
Tensor ActivationImpl::call(const Tensor& x, bool) { return fn_(cast_input(x, compute_dtype())); }
Config ActivationImpl::get_config() const { return layer_config(*this); }
KILN_REGISTER_LAYER(ActivationImpl, "Activation")

// ---- ReLU ----
ReLUImpl::ReLUImpl(ReLUOptions o) : ElementwiseLayer(base_options(o)), o_(std::move(o)) {
  if (o_.max_value && *o_.max_value < 0)
    throw ValueError("ReLU: `max_value` of a ReLU layer cannot be a negative value. Received: max_value=" +
                     kiln::detail::number_text(*o_.max_value));
  if (o_.negative_slope < 0)
    throw ValueError("ReLU: `negative_slope` of a ReLU layer cannot be a negative value. Received: negative_slope=" +
                     std::to_string(o_.negative_slope));
  apply_input_shape(*this, o_);
}
Tensor ReLUImpl::call(const Tensor& input, bool) {
  Tensor x = cast_input(input, compute_dtype());
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
Config ReLUImpl::get_config() const { return layer_config(*this); }
KILN_REGISTER_LAYER(ReLUImpl, "ReLU")

// ---- Softmax ----
SoftmaxImpl::SoftmaxImpl(SoftmaxOptions o) : ElementwiseLayer(base_options(o)), o_(std::move(o)) {
  apply_input_shape(*this, o_);
}
Tensor SoftmaxImpl::call(const Tensor& x, bool) { return softmax(cast_input(x, compute_dtype()), o_.axis); }
Config SoftmaxImpl::get_config() const { return layer_config(*this); }
KILN_REGISTER_LAYER(SoftmaxImpl, "Softmax")

// ---- LeakyReLU ----
LeakyReLUImpl::LeakyReLUImpl(double slope, ActivationOptions o)
    : ElementwiseLayer(base_options(o)), negative_slope_(slope), o_(std::move(o)) {
  if (negative_slope_ < 0)
    throw ValueError("LeakyReLU: the negative_slope value of a Leaky ReLU layer cannot be negative. Received: negative_slope=" +
                     std::to_string(negative_slope_));
  apply_input_shape(*this, o_);
}
Tensor LeakyReLUImpl::call(const Tensor& x, bool) { return activations::leaky_relu(cast_input(x, compute_dtype()), negative_slope_); }
Config LeakyReLUImpl::get_config() const { return layer_config(*this); }
Config LeakyReLUImpl::upgrade_entry(const Config& e) {
  const Config& c = e["config"];
  if (!c.contains("alpha") || c.contains("negative_slope")) return e;
  Config n = c;
  n["negative_slope"] = c["alpha"];
  n.erase("alpha");
  return replace_entry(e, "LeakyReLU", n);
}
KILN_REGISTER_LAYER(LeakyReLUImpl, "LeakyReLU")

// ---- ELU ----
ELUImpl::ELUImpl(double alpha, ActivationOptions o) : ElementwiseLayer(base_options(o)), alpha_(alpha), o_(std::move(o)) {
  apply_input_shape(*this, o_);
}
Tensor ELUImpl::call(const Tensor& x, bool) { return activations::elu(cast_input(x, compute_dtype()), alpha_); }
Config ELUImpl::get_config() const { return layer_config(*this); }
KILN_REGISTER_LAYER(ELUImpl, "ELU")

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
  Tensor x = cast_to_compute(input, compute_dtype());
  return relu(x) - alpha_.value() * relu(-x);
}
Config PReLUImpl::get_config() const { return layer_config(*this); }
KILN_REGISTER_LAYER(PReLUImpl, "PReLU")

}  // namespace kiln::layers
