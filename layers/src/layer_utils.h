#pragma once
// Private helpers shared by the built-in layers: option plumbing, the
// padding/data_format checks and conv output lengths. Only .cpp files include
// this (it pulls in nlohmann/json through nn/config_io.h).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kiln/nn/constraints.h"
#include "kiln/core/error.h"
#include "kiln/nn/initializers.h"
#include "kiln/nn/layer.h"
#include "kiln/layers/common.h"
#include "kiln/ops/reduce_ops.h"
#include "kiln/nn/regularizers.h"
#include "nn/config_io.h"
#include "ops/normalize_groups.h"

namespace kiln::layers::detail {

using config_io::ConfigReader;
using config_io::shape_from_json;
using config_io::shape_to_json;

/// Keras's initial_state keyword of the recurrent layers and their wrappers:
/// `xs` followed by the given states, as the list call {x, h, c} takes them.
std::vector<Tensor> with_initial_state(const Layer& layer, const std::vector<Tensor>& xs, const CallArg& state);

/// The base-layer kwargs of an options struct.
template <class O>
LayerOptions base_options(const O& o) {
  return LayerOptions{o.name, o.trainable, o.dtype, o.autocast};
}

/// Keras's input_shape kwarg: declared_input_shape = (None, ...input_shape).
template <class O>
void apply_input_shape(Layer& l, const O& o) {
  if (!o.input_shape) return;
  Shape s{None};
  for (auto d : *o.input_shape) s.push_back(d);
  l.declared_input_shape = s;
}

/// Floating inputs are computed in the layer's dtype (Keras autocasts them).
Tensor cast_input(const Tensor& x, DType layer_dtype);
/// The inputs of a merge layer: floating ones in the layer's dtype (Keras's
/// autocast), then all in their keras result_type, as ops.concatenate and
/// ops.add join float32 features with int64 lookup outputs. String inputs are
/// left as they are, for the op's own dtype error.
std::vector<Tensor> merge_inputs(const std::vector<Tensor>& xs, DType layer_dtype);
/// The fused normalization's layout (ops/normalize_groups.h) for statistics over
/// `axes` of a tensor of shape `s`, when they are its last axes; std::nullopt otherwise.
std::optional<ops::NormGroups> trailing_norm_groups(const Shape& s, std::vector<int> axes, bool center);
/// Any input (integer and bool too) in the layer's dtype: for layers that
/// multiply by their float weights (Dense, Conv, normalization).
Tensor cast_to_compute(const Tensor& x, DType layer_dtype);
/// The dtype Keras's normalization layers compute their statistics in for a
/// compute dtype: float32 for the 16-bit floats (result_type(x, "float32")).
inline DType statistics_dtype(DType compute) { return compute == DType::float64 ? DType::float64 : DType::float32; }

Config size2_json(Size2 s);
/// Adds "batch_input_shape" when the layer was given an input shape.
void add_declared_shape(const Layer& l, Config& c);

/// Keras's conv_output_length: output size along one spatial axis for padding
/// "valid", "same", "causal" or "full"; None (-1) stays None.
int64_t conv_output_length(int64_t in, int64_t kernel, const std::string& padding, int64_t stride, int64_t dilation);
/// Lower-cases and checks a padding argument against the allowed values.
std::string check_padding(const std::string& cls, std::string padding, std::initializer_list<const char*> allowed);
/// Checks data_format is "channels_last" or "channels_first" (empty means channels_last).
std::string check_data_format(const std::string& cls, const std::string& data_format);

}  // namespace kiln::layers::detail
