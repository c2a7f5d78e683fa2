// Dense: x · kernel + bias, then the activation.
#include "kiln/layers/dense.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "config_fields.h"
#include "legacy_config.h"

namespace kiln::layers {

using namespace detail;

DenseImpl::DenseImpl(int64_t units, DenseOptions o) : LoraLayer(base_options(o), o.lora_rank, o.lora_alpha), units_(units), o_(std::move(o)) {
  if (units_ <= 0)
    throw ValueError("Dense: received an invalid value for argument `units`, expected a positive integer, got " +
                     std::to_string(units_));
  activation_ = activations::get(o_.activation);  // unknown names fail here, not at the first call
  if (o_.activation.empty()) o_.activation = "linear";
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.min_ndim = 2}});
  set_supports_masking(true);
}

void DenseImpl::build(const Shape& s) {
  const int64_t in = s[-1];
  if (in < 0)
    throw ValueError("Layer '" + name() + "' (Dense): the last dimension of the inputs should be defined, but received input with shape " +
                     s.to_string());
  if (const std::string mode = dtype_policy().quantization_mode(); !mode.empty()) {
    // A quantized layer from a config: Keras's _int8_build or _int4_build, filled by the weights that follow.
    o_.quantization_config = quantizers::quantized_build_config(*this, o_.quantization_config);
    if (mode == "int4") build_int4(in);
    else build_int8(in);
  } else {
    kernel_ = add_weight("kernel", {in, units_},
                         {.initializer = o_.kernel_initializer, .regularizer = o_.kernel_regularizer,
                          .constraint = o_.kernel_constraint});
  }
  if (o_.use_bias)
    bias_ = add_weight("bias", {units_},
                       {.initializer = o_.bias_initializer, .regularizer = o_.bias_regularizer,
                        .constraint = o_.bias_constraint});
  set_input_spec({InputSpec{.min_ndim = 2, .axes = {{-1, in}}}});
  build_lora(false);
}

LoraLayer::LoraBase DenseImpl::lora_base() const {
  return {kernel_, o_.kernel_regularizer, o_.kernel_constraint != nullptr, "kernel"};
}

Tensor DenseImpl::call(const Tensor& input, bool) {
  Tensor x = cast_to_compute(input, compute_dtype());
  Tensor y;
  if (kernel_scale_.defined()) {
    if (auto fused = int8_with_bias(x)) return *fused;
    y = quantized_matmul(x);
  } else if (const Tensor kernel = kernel_with_lora(); x.rank() == 2) {
    y = matmul(x, kernel);
  } else {
    // (b, ..., in) -> (b·..., in) · (in, units) -> (b, ..., units): one GEMM.
    Shape out = x.shape();
    out[-1] = units_;
    y = reshape(matmul(reshape(x, {-1, x.shape()[-1]}), kernel), out);
  }
  // Bias and a relu activation run as one fused pass.
  if (o_.use_bias && o_.activation == "relu") return bias_add(y, bias_.value(), true);
  if (o_.use_bias) y = bias_add(y, bias_.value());
  return activation_(y);
}

Shape DenseImpl::compute_output_shape(const Shape& s) {
  Shape out = s;
  out[-1] = units_;
  return out;
}

Config DenseImpl::get_config() const {
  Config c = layer_config(*this);
  write_lora_config(c);
  return c;
}

Config DenseImpl::upgrade_entry(const Config& e) {
  const Config& c = e["config"];
  if (!c.contains("output_dim")) return e;
  Config n = keras1_base_config(c);
  n["units"] = c["output_dim"];
  n["use_bias"] = c.value("bias", true);
  if (!n.contains("batch_input_shape") && c.contains("input_dim") && !c["input_dim"].is_null())
    n["batch_input_shape"] = Config::array({nullptr, c["input_dim"]});
  return {{"class_name", "Dense"}, {"config", n}};
}

void DenseImpl::to_keras3_config(Config& c) {
  // Keras 3's Dense.get_config leaves out activity_regularizer (tf.keras 2 wrote it).
  if (c.contains("activity_regularizer") && c["activity_regularizer"].is_null()) c.erase("activity_regularizer");
}

KILN_REGISTER_LAYER(DenseImpl, "Dense")

}  // namespace kiln::layers
