// Keras's abs-max quantizer and int8 quantization config.
#include "kiln/nn/quantizers.h"

#include <algorithm>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "autodiff/autodiff.h"
#include "backend/backend.h"
#include "core/op_log.h"
#include "ops/op_util.h"
#include "kiln/core/error.h"
#include "kiln/nn/layer.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln::quantizers {

namespace {

/// How many trailing axes of a rank-`rank` tensor `axes` names, when it names exactly the
/// last few (each once, in any order, negative or not); 0 otherwise.
int trailing_axes(const std::vector<int>& axes, int rank) {
  std::vector<int> sorted;
  for (int a : axes) sorted.push_back(a < 0 ? a + rank : a);
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != rank - static_cast<int>(sorted.size()) + static_cast<int>(i)) return 0;
  return static_cast<int>(sorted.size());
}

}  // namespace

std::pair<Tensor, Tensor> abs_max_quantize(const Tensor& x, int64_t axis, const AbsMaxQuantizer& q) {
  return abs_max_quantize(x, std::vector<int>{static_cast<int>(axis)}, q);
}

std::pair<Tensor, Tensor> abs_max_quantize(const Tensor& x, const std::vector<int>& axes, const AbsMaxQuantizer& q) {
  KILN_LOG_OP(abs_max_quantize, x, axes, q);
  ops::check_concrete("abs_max_quantize", x);
  if (!is_floating(x.dtype()))
    throw TypeError("abs_max_quantize: expected a float tensor, but received " + dtype_name(x.dtype()) + " with shape " +
                    x.shape().to_string());
  const int trailing = trailing_axes(axes, x.rank());
  if (trailing > 0 && x.dtype() == DType::float32 && q.output_dtype == DType::int8 && q.value_min >= -128 &&
      q.value_max <= 127 && !autodiff::active()) {
    // The activations of an int8 layer at inference: one kernel over rows of the
    // trailing axes. Under a tape the ops below run instead, so the scale keeps its gradient.
    Shape scale_shape = x.shape();
    int64_t row = 1;
    for (int i = x.rank() - trailing; i < x.rank(); ++i) row *= std::exchange(scale_shape[i], 1);
    const Tensor rows = reshape(x, {x.size() / std::max<int64_t>(row, 1), row});
    Tensor quantized = Tensor::empty(rows.shape(), DType::int8, x.device());
    Tensor scale = Tensor::empty({rows.shape()[0], 1}, DType::float32, x.device());
    backend::backend_for(x.device()).abs_max_quantize(rows, q.value_min, q.value_max, q.epsilon, quantized, scale);
    return {reshape(quantized, x.shape()), reshape(scale, scale_shape)};
  }
  const Tensor scale = static_cast<double>(q.value_max) / (max(abs(x), Axes(axes), true) + q.epsilon);
  const Tensor quantized = clip(round(x * scale), q.value_min, q.value_max);
  return {cast(quantized, q.output_dtype), scale};
}

namespace {

/// int8_matmul, then bias_add(., bias, relu) where bias is given.
Tensor int8_product(const Tensor& xq, const Tensor& kernel, const Tensor& x_scale, const Tensor& kernel_scale,
                    const Tensor* bias, bool relu) {
  const int64_t units = kernel.rank() == 2 ? kernel.shape()[1] : -1;
  if (xq.dtype() != DType::int8 || kernel.dtype() != DType::int8 || xq.rank() != 2 || kernel.rank() != 2 ||
      xq.shape()[1] != kernel.shape()[0] || x_scale.shape() != Shape({xq.shape()[0], 1}) ||
      kernel_scale.shape() != Shape({units}) || !is_floating(x_scale.dtype()) || !is_floating(kernel_scale.dtype()) ||
      (bias && bias->shape() != Shape({units})))
    throw ValueError("int8_matmul: expected xq (rows, k) and kernel (k, units) int8, x_scale (rows, 1) and "
                     "kernel_scale (units,) float" + std::string(bias ? " and bias (units,)" : "") +
                     ", but received xq " + xq.shape().to_string() + " " + dtype_name(xq.dtype()) + ", kernel " +
                     kernel.shape().to_string() + " " + dtype_name(kernel.dtype()) + ", x_scale " +
                     x_scale.shape().to_string() + ", kernel_scale " + kernel_scale.shape().to_string() +
                     (bias ? ", bias " + bias->shape().to_string() : ""));
  if (x_scale.dtype() == DType::float32 && kernel_scale.dtype() == DType::float32 &&
      (!bias || bias->dtype() == DType::float32) && !autodiff::active()) {
    auto& be = backend::backend_for(xq.device());
    Tensor out = Tensor::empty({xq.shape()[0], units}, DType::float32, xq.device());
    if (be.int8_matmul_dequantize(xq, kernel, reshape(x_scale, {-1}), kernel_scale, bias, relu, out)) return out;
  }
  const Tensor y = cast(matmul(xq, kernel), x_scale.dtype()) / (kernel_scale * x_scale);
  return bias ? bias_add(y, *bias, relu) : y;
}

}  // namespace

Tensor int8_matmul(const Tensor& xq, const Tensor& kernel, const Tensor& x_scale, const Tensor& kernel_scale) {
  KILN_LOG_OP(int8_matmul, xq, kernel, x_scale, kernel_scale);
  return int8_product(xq, kernel, x_scale, kernel_scale, nullptr, false);
}

Tensor int8_matmul(const Tensor& xq, const Tensor& kernel, const Tensor& x_scale, const Tensor& kernel_scale,
                   const Tensor& bias, bool relu) {
  KILN_LOG_OP(int8_matmul, xq, kernel, x_scale, kernel_scale, bias, relu);
  return int8_product(xq, kernel, x_scale, kernel_scale, &bias, relu);
}

namespace {

Config quantizer_config(const AbsMaxQuantizer& q) {
  return {{"module", "keras.quantizers"},
          {"class_name", "AbsMaxQuantizer"},
          {"config",
           {{"value_range", Config::array({q.value_min, q.value_max})},
            {"epsilon", q.epsilon},
            {"output_dtype", dtype_name(q.output_dtype)}}},
          {"registered_name", nullptr}};
}

std::optional<AbsMaxQuantizer> quantizer_from(const Config& c, const std::string& who) {
  if (c.is_null()) return std::nullopt;
  if (!c.is_object() || c.value("class_name", "") != "AbsMaxQuantizer" || !c.contains("config"))
    throw ValueError(who + ": expected an AbsMaxQuantizer in quantization_config, but received " + c.dump());
  const Config& k = c["config"];
  AbsMaxQuantizer q;
  if (k.contains("value_range")) {
    const Config& r = k["value_range"];
    if (!r.is_array() || r.size() != 2 || !r[0].is_number_integer() || !r[1].is_number_integer())
      throw ValueError(who + ": AbsMaxQuantizer's value_range must be two integers, but received " + r.dump());
    q.value_min = r[0].get<int>();
    q.value_max = r[1].get<int>();
  }
  if (k.contains("epsilon") && k["epsilon"].is_number()) q.epsilon = k["epsilon"].get<double>();
  if (k.contains("output_dtype") && k["output_dtype"].is_string()) q.output_dtype = dtype_from_name(k["output_dtype"]);
  if (q.output_dtype != DType::int8 || q.value_min < -128 || q.value_max > 127 || q.value_min >= q.value_max)
    throw ValueError(who + ": Quantizer with output_dtype='int8' requires value_range to be within the interval "
                           "[-128, 127]; received value_range=[" + std::to_string(q.value_min) + ", " +
                     std::to_string(q.value_max) + "], output_dtype=" + dtype_name(q.output_dtype));
  return q;
}

}  // namespace

QuantizationConfig int4_config(std::optional<int> block_size, std::optional<AbsMaxQuantizer> weight_quantizer,
                               std::optional<AbsMaxQuantizer> activation_quantizer) {
  return {.mode = "int4",
          .weight_quantizer = weight_quantizer,
          .activation_quantizer = activation_quantizer,
          .block_size = block_size};
}

namespace {

// Keras 3.15's dtype_policies.QUANTIZATION_MODES.
const char* const keras_modes = "('int8', 'float8', 'int4', 'gptq', 'awq')";

void check_mode(const std::string& mode, const std::string& who) {
  if (mode == "int8" || mode == "int4") return;
  if (mode == "float8" || mode == "gptq" || mode == "awq")
    throw ValueError(who + ": quantization mode='" + mode + "' is not supported by Kiln, which quantizes to 'int8' "
                           "and 'int4'");
  throw ValueError(who + ": Invalid quantization mode. Expected one of " + keras_modes + ". Received: mode=" + mode);
}

// The checks of Keras's Int4QuantizationConfig constructor.
void check_int4(const QuantizationConfig& c, const std::string& who) {
  const int block = c.block_size.value_or(-1);
  if (block != -1 && block <= 0)
    throw ValueError(who + ": block_size must be None, -1, or a positive integer. Received: block_size=" +
                     std::to_string(block));
  if (block > 0 && (c.weight_quantizer || c.activation_quantizer))
    throw ValueError(who + ": Int4 sub-channel quantization (block_size > 0) does not support custom quantizers. "
                           "Either set block_size to None or -1 for per-channel quantization, or remove the custom "
                           "quantizer arguments. Received: block_size=" + std::to_string(block));
  if (c.weight_quantizer && (c.weight_quantizer->value_min != -8 || c.weight_quantizer->value_max != 7))
    throw ValueError(who + ": Int4QuantizationConfig requires a weight_quantizer with value_range=(-8, 7). Received: "
                           "value_range=(" + std::to_string(c.weight_quantizer->value_min) + ", " +
                     std::to_string(c.weight_quantizer->value_max) + ")");
}

}  // namespace

QuantizationConfig resolve_config(const std::string& mode, const std::optional<QuantizationConfig>& config,
                                  const std::string& who) {
  if (!config) {
    if (mode.empty()) throw ValueError(who + ": You must provide either `mode` or `config` to `quantize`.");
    check_mode(mode, who);
    return mode == "int4" ? int4_config() : QuantizationConfig{};
  }
  if (!mode.empty() && config->mode != mode)
    throw ValueError(who + ": Contradictory arguments: mode='" + mode + "' but config.mode='" + config->mode + "'");
  check_mode(config->mode, who);
  if (config->mode == "int4") check_int4(*config, who);
  else if (config->block_size)
    throw ValueError(who + ": block_size is an int4 setting, but the config's mode is '" + config->mode + "'");
  return *config;
}

QuantizeArgs check_quantize_args(const Layer& l, const std::string& mode,
                                 const std::optional<QuantizationConfig>& config) {
  const std::string who = "Layer '" + l.name() + "' (" + l.class_name() + ")";
  QuantizationConfig c = resolve_config(mode, config, who);
  if (!l.built())
    throw ValueError(who + ": Cannot quantize a layer that isn't yet built. Layer '" + l.name() + "' (of type '" +
                     l.class_name() + "') is not built yet.");
  if (!l.dtype_policy().quantization_mode().empty())
    throw ValueError("Layer '" + l.name() + "' is already quantized with dtype_policy='" + l.dtype_policy().name() +
                     "'. Received: mode=" + c.mode);
  const std::string policy_mode = c.mode == "int4" ? "int4/" + std::to_string(c.block_size.value_or(-1)) : c.mode;
  // DTypePolicy::quantized refuses int8 under a float16 compute dtype.
  return {c, DTypePolicy::quantized(policy_mode, l.dtype_policy().name())};
}

QuantizationConfig quantized_build_config(const Layer& l, const std::optional<QuantizationConfig>& saved) {
  const std::string mode = l.dtype_policy().quantization_mode();
  const std::string who = "Layer '" + l.name() + "' (" + l.class_name() + ")";
  if (saved && saved->mode != mode)
    throw ValueError(who + ": its dtype policy '" + l.dtype_policy().name() + "' is for mode '" + mode +
                     "', but its quantization_config is for mode '" + saved->mode + "'");
  if (saved) return *saved;
  if (mode == "int4") return int4_config(l.dtype_policy().int4_block_size().value_or(-1));
  return resolve_config(mode, std::nullopt, who);
}

Config to_config(const QuantizationConfig& c) {
  Config inner = {{"weight_quantizer", c.weight_quantizer ? quantizer_config(*c.weight_quantizer) : Config()},
                  {"activation_quantizer", c.activation_quantizer ? quantizer_config(*c.activation_quantizer) : Config()}};
  if (c.mode == "int4") inner["block_size"] = c.block_size ? Config(*c.block_size) : Config();
  return {{"module", "keras.quantizers"},
          {"class_name", c.mode == "int4" ? "Int4QuantizationConfig" : "Int8QuantizationConfig"},
          {"config", inner},
          {"registered_name", nullptr}};
}

std::optional<QuantizationConfig> config_from(const Config& c, const std::string& who) {
  if (c.is_null()) return std::nullopt;
  const std::string cls = c.is_object() ? c.value("class_name", "") : "";
  if ((cls != "Int8QuantizationConfig" && cls != "Int4QuantizationConfig") || !c.contains("config") ||
      !c["config"].is_object())
    throw ValueError(who + ": expected an Int8QuantizationConfig or an Int4QuantizationConfig (Kiln quantizes to int8 "
                           "and int4), but received " + c.dump());
  const Config& k = c["config"];
  QuantizationConfig q;
  q.mode = cls == "Int4QuantizationConfig" ? "int4" : "int8";
  q.weight_quantizer = quantizer_from(k.value("weight_quantizer", Config()), who);
  q.activation_quantizer = quantizer_from(k.value("activation_quantizer", Config()), who);
  if (q.mode == "int4") {
    // Files from before Keras had block_size were per channel.
    const Config b = k.value("block_size", Config());
    if (!b.is_null() && !b.is_number_integer())
      throw ValueError(who + ": Int4QuantizationConfig's block_size must be an integer or null, but received " + b.dump());
    if (!b.is_null()) q.block_size = b.get<int>();
    return resolve_config("int4", q, who);
  }
  return q;
}

}  // namespace kiln::quantizers
