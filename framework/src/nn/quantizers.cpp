// Keras's abs-max quantizer and int8 quantization config.
#include "kiln/nn/quantizers.h"

#include <nlohmann/json.hpp>

#include "autodiff/autodiff.h"
#include "backend/backend.h"
#include "core/op_log.h"
#include "ops/op_util.h"
#include "kiln/core/error.h"
#include "kiln/nn/layer.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln::quantizers {

std::pair<Tensor, Tensor> abs_max_quantize(const Tensor& x, int64_t axis, const AbsMaxQuantizer& q) {
  KILN_LOG_OP(abs_max_quantize, x, axis, q);
  ops::check_concrete("abs_max_quantize", x);
  if (!is_floating(x.dtype()))
    throw TypeError("abs_max_quantize: expected a float tensor, but received " + dtype_name(x.dtype()) + " with shape " +
                    x.shape().to_string());
  const bool last_axis = x.rank() > 0 && (axis == -1 || axis == x.rank() - 1);
  if (last_axis && x.dtype() == DType::float32 && q.output_dtype == DType::int8 && q.value_min >= -128 &&
      q.value_max <= 127 && !autodiff::active()) {
    // The activations of an int8 layer at inference: one kernel. Under a tape the
    // ops below run instead, so the scale keeps its gradient.
    Shape scale_shape = x.shape();
    scale_shape[-1] = 1;
    Tensor quantized = Tensor::empty(x.shape(), DType::int8, x.device());
    Tensor scale = Tensor::empty(scale_shape, DType::float32, x.device());
    backend::backend_for(x.device()).abs_max_quantize(x, q.value_min, q.value_max, q.epsilon, quantized, scale);
    return {quantized, scale};
  }
  const Tensor scale = static_cast<double>(q.value_max) / (max(abs(x), {static_cast<int>(axis)}, true) + q.epsilon);
  const Tensor quantized = clip(round(x * scale), q.value_min, q.value_max);
  return {cast(quantized, q.output_dtype), scale};
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

DTypePolicy check_quantize_args(const Layer& l, const std::string& mode) {
  const std::string who = "Layer '" + l.name() + "' (" + l.class_name() + ")";
  if (!l.built())
    throw ValueError(who + ": Cannot quantize a layer that isn't yet built. Layer '" + l.name() + "' (of type '" +
                     l.class_name() + "') is not built yet.");
  if (!l.dtype_policy().quantization_mode().empty())
    throw ValueError("Layer '" + l.name() + "' is already quantized with dtype_policy='" + l.dtype_policy().name() +
                     "'. Received: mode=" + mode);
  if (mode != "int8")
    throw ValueError(who + ": Invalid quantization mode. Expected one of ('int8',). Received: mode=" + mode);
  return DTypePolicy::quantized(mode, l.dtype_policy().name());  // refuses a float16 compute dtype
}

Config to_config(const QuantizationConfig& c) {
  return {{"module", "keras.quantizers"},
          {"class_name", "Int8QuantizationConfig"},
          {"config",
           {{"weight_quantizer", c.weight_quantizer ? quantizer_config(*c.weight_quantizer) : Config()},
            {"activation_quantizer", c.activation_quantizer ? quantizer_config(*c.activation_quantizer) : Config()}}},
          {"registered_name", nullptr}};
}

std::optional<QuantizationConfig> config_from(const Config& c, const std::string& who) {
  if (c.is_null()) return std::nullopt;
  if (!c.is_object() || c.value("class_name", "") != "Int8QuantizationConfig" || !c.contains("config") ||
      !c["config"].is_object())
    throw ValueError(who + ": expected an Int8QuantizationConfig (Kiln quantizes to int8), but received " + c.dump());
  const Config& k = c["config"];
  QuantizationConfig q;
  q.weight_quantizer = quantizer_from(k.value("weight_quantizer", Config()), who);
  q.activation_quantizer = quantizer_from(k.value("activation_quantizer", Config()), who);
  return q;
}

}  // namespace kiln::quantizers
