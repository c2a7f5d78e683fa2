// keras.ops calls as functional-graph nodes (kiln/nn/operation_layer.h): each
// Keras op class maps to Kiln's ops, with Keras's argument conventions
// (a Python number as an operand, axis as None, an int or a list).
#include "kiln/nn/operation_layer.h"

#include <functional>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "core/json_errors.h"
#include "kiln/core/error.h"
#include "nn/keras_op_table.h"
#include "nn/operation_call.h"
#include "kiln/nn/activations.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln {

namespace {

using detail::OpCall;
using detail::OpFn;

const std::map<std::string, OpFn>& op_table() {
  static const std::map<std::string, OpFn> table = [] {
    std::map<std::string, OpFn> t = detail::elementwise_operations();
    t.merge(detail::numpy_operations());
    t.merge(std::map<std::string, OpFn>{
      {"Add", [](const OpCall& c) { return c.operand(0) + c.operand(1); }},
      {"Subtract", [](const OpCall& c) { return c.operand(0) - c.operand(1); }},
      {"Multiply", [](const OpCall& c) { return c.operand(0) * c.operand(1); }},
      {"Divide", [](const OpCall& c) { return c.operand(0) / c.operand(1); }},
      {"TrueDivide", [](const OpCall& c) { return c.operand(0) / c.operand(1); }},
      {"Maximum", [](const OpCall& c) { return maximum(c.operand(0), c.operand(1)); }},
      {"Minimum", [](const OpCall& c) { return minimum(c.operand(0), c.operand(1)); }},
      {"Equal", [](const OpCall& c) { return equal(c.operand(0), c.operand(1)); }},
      {"NotEqual", [](const OpCall& c) { return not_equal(c.operand(0), c.operand(1)); }},
      {"LogicalAnd", [](const OpCall& c) { return logical_and(OpCall::as_bool(c.operand(0)), OpCall::as_bool(c.operand(1))); }},
      {"LogicalOr", [](const OpCall& c) { return logical_or(OpCall::as_bool(c.operand(0)), OpCall::as_bool(c.operand(1))); }},
      // any/all: the largest/smallest of the inputs as 0/1, compared with 0.
      {"Any",
       [](const OpCall& c) {
         Tensor m = max(cast(OpCall::as_bool(c.operand(0)), DType::float32), c.axes(1), c.keepdims(2));
         return greater(m, zeros({}, DType::float32));
       }},
      {"All",
       [](const OpCall& c) {
         Tensor m = min(cast(OpCall::as_bool(c.operand(0)), DType::float32), c.axes(1), c.keepdims(2));
         return greater(m, zeros({}, DType::float32));
       }},
      {"Sum", [](const OpCall& c) { return sum(c.operand(0), c.axes(1), c.keepdims(2)); }},
      {"Mean", [](const OpCall& c) { return mean(c.operand(0), c.axes(1), c.keepdims(2)); }},
      {"Max", [](const OpCall& c) { return max(c.operand(0), c.axes(1), c.keepdims(2)); }},
      {"Min", [](const OpCall& c) { return min(c.operand(0), c.axes(1), c.keepdims(2)); }},
      {"Cast",
       [](const OpCall& c) {
         const Config* d = c.keyword("dtype", 1);
         if (!d || !d->is_string()) c.fail("needs a dtype name");
         return cast(c.operand(0), dtype_from_name(d->get<std::string>()));
       }},
      {"ExpandDims",
       [](const OpCall& c) {
         const Config* a = c.keyword("axis", 1);
         if (!a) c.fail("needs an axis");
         Tensor x = c.operand(0);
         for (int ax : c.ints(*a, "axis")) x = expand_dims(x, ax);
         return x;
       }},
      {"Squeeze",
       [](const OpCall& c) {
         const Config* a = c.keyword("axis", 1);
         return squeeze(c.operand(0), a && !a->is_null() ? c.ints(*a, "axis") : std::vector<int>{});
       }},
      {"Reshape",
       [](const OpCall& c) {
         const Config* s = c.keyword("newshape", 1);
         if (!s) c.fail("needs a newshape");
         std::vector<int64_t> dims;
         for (int d : c.ints(*s, "newshape")) dims.push_back(d);
         return reshape(c.operand(0), Shape(dims));
       }},
      {"Transpose",
       [](const OpCall& c) {
         const Config* a = c.keyword("axes", 1);
         return transpose(c.operand(0), a && !a->is_null() ? c.ints(*a, "axes") : std::vector<int>{});
       }},
      {"Concatenate",
       [](const OpCall& c) {
         const Config* a = c.keyword("axis", 1);
         return concat(c.tensor_list(0), a && a->is_number_integer() ? a->get<int>() : 0);
       }},
    });
    return t;
  }();
  return table;
}

std::string known_ops() {
  std::string s;
  std::set<std::string> names;
  for (const auto& [k, f] : op_table()) names.insert(k);
  for (const auto& c : detail::keras_op_classes())
    if (detail::find_keras_op(c.function)) names.insert(c.class_name);
  for (const auto& k : names) s += (s.empty() ? "" : ", ") + k;
  return s;
}

}  // namespace

/// A class no hand-written node covers, through the keras.ops table: the tensors
/// of the node's arguments in order (those inside a list too, then the keyword
/// arguments' tensors), the config's and the call's other keywords, and as
/// positional arguments the constructor's parameters in order (or the node's own
/// non-tensor arguments, as Keras 3 recorded before ops kept their config).
std::vector<Tensor> table_op(const detail::KerasOpClass& cls, const OpCall& c) {
  std::vector<Tensor> xs;
  Config positional = Config::array();
  for (const auto& a : c.args.is_array() ? c.args : Config::array()) {
    if (c.is_slot(a)) {
      xs.push_back(c.slot(a));
    } else if (a.is_array() && !a.empty() && c.is_slot(a[0])) {
      for (const auto& e : a) xs.push_back(c.slot(e));
    } else {
      positional.push_back(a);
    }
  }
  Config p = Config::object();
  if (c.config.is_object())
    for (const auto& [key, value] : c.config.items())
      if (key != "name") p[key] = value;
  if (c.kwargs.is_object())
    for (const auto& [key, value] : c.kwargs.items()) {
      if (c.is_slot(value)) xs.push_back(c.slot(value));
      else p[key] = value;
    }
  if (positional.empty())
    for (const char* name : cls.params) positional.push_back(p.contains(name) ? p[name] : Config());
  p["args"] = positional;
  return (*detail::find_keras_op(cls.function))(xs, p);
}

bool OperationLayer::supports(const std::string& keras_class) {
  return op_table().count(keras_class) > 0 || detail::find_keras_op_class(keras_class) != nullptr;
}

OperationLayer::OperationLayer(const std::string& keras_class, const Config& config, const Config& args,
                               const Config& kwargs)
    : Layer(LayerOptions{config.is_object() ? config.value("name", "") : "", true, DType::float32}),
      keras_class_(keras_class),
      config_json_((config.is_object() ? config : Config::object()).dump()),
      args_json_(args.dump()),
      kwargs_json_((kwargs.is_object() ? kwargs : Config::object()).dump()) {
  if (!supports(keras_class))
    throw NotFoundError("Operation '" + keras_class + "' is not supported by Kiln; supported keras.ops classes: " +
                        known_ops());
  set_supports_masking(true);  // Keras ops neither use nor warn about masks
}

OperationLayer::OperationLayer(const std::string& keras_class, const Config& config, const Config& args)
    : OperationLayer(keras_class, config, args, Config::object()) {}

OperationLayer::~OperationLayer() = default;

Config OperationLayer::get_config() const {
  Config c = Config::parse(config_json_);
  c["name"] = name();
  return c;
}

std::string OperationLayer::keras_module() const {
  static const std::set<std::string> nn = {
      "Relu",  "Relu6",     "Sigmoid",    "SparseSigmoid", "Softplus",    "Softsign",  "SoftShrink", "SparsePlus",
      "Silu",  "Squareplus", "LogSigmoid", "LeakyRelu",    "HardSigmoid", "HardSilu",  "Elu",        "Selu",
      "Gelu",  "Celu",      "Glu",        "TanhShrink",    "HardTanh",    "HardShrink", "Threshold", "Softmax",
      "LogSoftmax"};
  if (nn.count(keras_class_)) return "keras.src.ops.nn";
  if (keras_class_ == "ReLU") return "keras.src.activations.activations";
  if (auto it = detail::numpy_operation_modules().find(keras_class_); it != detail::numpy_operation_modules().end())
    return it->second;
  if (keras_class_ == "Erf" || keras_class_ == "Rsqrt") return "keras.src.ops.math";
  if (!op_table().count(keras_class_)) return detail::find_keras_op_class(keras_class_)->module;
  return keras_class_ == "Cast" ? "keras.src.ops.core" : "keras.src.ops.numpy";
}

namespace {
/// `v` with every tensor slot replaced by its reference.
Config with_refs(const Config& v, const std::vector<Config>& refs) {
  if (v.is_object() && v.contains(OperationLayer::kTensorSlot))
    return refs.at(v[OperationLayer::kTensorSlot].get<std::size_t>());
  if (v.is_array() || v.is_object()) {
    Config out = v.is_array() ? Config::array() : Config::object();
    for (auto it = v.begin(); it != v.end(); ++it)
      if (v.is_array()) out.push_back(with_refs(*it, refs));
      else out[it.key()] = with_refs(*it, refs);
    return out;
  }
  return v;
}
}  // namespace

Config OperationLayer::args_with(const std::vector<Config>& refs) const {
  return with_refs(Config::parse(args_json_), refs);
}

Config OperationLayer::kwargs_with(const std::vector<Config>& refs) const {
  return with_refs(Config::parse(kwargs_json_), refs);
}

Tensor OperationLayer::compute_list_mask(const std::vector<Tensor>&, const std::vector<Tensor>&) { return Tensor(); }
Tensor OperationLayer::compute_mask(const Tensor&, const Tensor&) { return Tensor(); }

std::vector<Tensor> OperationLayer::call(const std::vector<Tensor>& xs, bool) {
  const Config config = Config::parse(config_json_), args = Config::parse(args_json_),
               kwargs = Config::parse(kwargs_json_);
  const OpCall c{keras_class_, config, args, xs, kwargs};
  if (auto it = op_table().find(keras_class_); it != op_table().end()) return {it->second(c)};
  try {
    return table_op(*detail::find_keras_op_class(keras_class_), c);
  } catch (const nlohmann::json::exception& e) {
    c.fail(std::string("unexpected arguments: ") + detail::json_error_text(e));
  }
}

Tensor keras_op(const std::string& keras_class, const std::vector<Tensor>& tensors, const Config& config,
                const std::string& args_json) {
  Config args = Config::array();
  if (args_json.empty())
    for (std::size_t i = 0; i < tensors.size(); ++i) args.push_back({{OperationLayer::kTensorSlot, i}});
  else
    args = Config::parse(args_json);
  auto op = std::make_shared<OperationLayer>(keras_class, config, args);
  return (*op)(tensors).at(0);
}

Tensor keras_op(const std::string& keras_class, const std::vector<Tensor>& tensors) {
  return keras_op(keras_class, tensors, Config::object());
}

}  // namespace kiln
