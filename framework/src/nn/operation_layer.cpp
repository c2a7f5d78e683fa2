// keras.ops calls as functional-graph nodes (kiln/nn/operation_layer.h): each
// Keras op class maps to Kiln's ops, with Keras's argument conventions
// (a Python number as an operand, axis as None, an int or a list).
#include "kiln/nn/operation_layer.h"

#include <functional>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/nn/activations.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln {

namespace {

struct OpCall {
  const std::string& cls;
  const Config& config;
  const Config& args;
  const std::vector<Tensor>& tensors;

  [[noreturn]] void fail(const std::string& what) const {
    throw ValueError("Operation '" + cls + "': " + what + " (config " + config.dump().substr(0, 160) + ", args " +
                     args.dump().substr(0, 160) + ")");
  }
  bool is_slot(const Config& a) const { return a.is_object() && a.contains(OperationLayer::kTensorSlot); }
  const Tensor& slot(const Config& a) const {
    const Config& i = a.at(OperationLayer::kTensorSlot);
    if (!i.is_number_integer() || i.get<int64_t>() < 0 || i.get<std::size_t>() >= tensors.size())
      fail("tensor slot " + i.dump() + " is out of range for " + std::to_string(tensors.size()) + " tensor input(s)");
    return tensors[i.get<std::size_t>()];
  }
  /// Positional argument i: a tensor, or a Python number taking the other operand's dtype.
  Tensor operand(std::size_t i) const {
    if (!args.is_array() || i >= args.size()) fail("expected at least " + std::to_string(i + 1) + " arguments");
    const Config& a = args[i];
    if (is_slot(a)) return slot(a);
    const Tensor* like = nullptr;
    for (const auto& o : args)
      if (is_slot(o)) like = &slot(o);
    if (!like) fail("needs a tensor argument");
    if (a.is_boolean()) return cast(scalar_like(a.get<bool>() ? 1.0 : 0.0, *like), DType::bool_);
    if (a.is_number()) return scalar_like(a.get<double>(), *like);
    fail("argument " + std::to_string(i) + " must be a tensor or a number, but received " + a.dump().substr(0, 80));
  }
  /// A keyword from the op's config (Keras's constructor arguments), or the
  /// positional argument after the tensor (Keras 3 before ops kept their config).
  const Config* keyword(const char* key, std::size_t position) const {
    if (config.is_object() && config.contains(key)) return &config[key];
    if (args.is_array() && position < args.size()) return &args[position];
    return nullptr;
  }
  static Config untuple(const Config& v) {
    if (v.is_object() && v.value("class_name", "") == "__tuple__") return v.at("config").at("value");
    return v;
  }
  std::vector<int> ints(const Config& raw, const char* what) const {
    const Config v = untuple(raw);
    std::vector<int> out;
    if (v.is_number_integer()) out.push_back(v.get<int>());
    else if (v.is_array())
      for (const auto& d : v) {
        if (!d.is_number_integer()) fail(std::string(what) + " must be integers, but received " + v.dump());
        out.push_back(d.get<int>());
      }
    else fail(std::string(what) + " must be an int or a list of ints, but received " + v.dump());
    return out;
  }
  Axes axes(std::size_t position) const {
    const Config* v = keyword("axis", position);
    if (!v || v->is_null()) return Axes();
    return Axes(ints(*v, "axis"));
  }
  /// A number from the op's config, or `fallback` when it is absent or null.
  double number(const char* key, std::size_t position, double fallback) const {
    const Config* v = keyword(key, position);
    if (!v || v->is_null()) return fallback;
    if (!v->is_number()) fail(std::string(key) + " must be a number, but received " + v->dump());
    return v->get<double>();
  }
  int axis(std::size_t position, int fallback) const {
    const Config* v = keyword("axis", position);
    if (!v || v->is_null()) return fallback;
    const std::vector<int> a = ints(*v, "axis");
    if (a.size() != 1) fail("axis must be one integer, but received " + v->dump());
    return a[0];
  }
  bool keepdims(std::size_t position) const {
    const Config* v = keyword("keepdims", position);
    return v && v->is_boolean() && v->get<bool>();
  }
};

using OpFn = std::function<Tensor(const OpCall&)>;

/// keras.activations.relu as an op: Keras's ReLU.static_call, term by term.
Tensor relu_op(const OpCall& c) {
  Tensor x = c.operand(0);
  const double slope = c.number("negative_slope", 1, 0.0), threshold = c.number("threshold", 3, 0.0);
  const Config* max_value = c.keyword("max_value", 2);
  if (slope != 0.0 && (!max_value || max_value->is_null()) && threshold == 0.0)
    return activations::leaky_relu(x, slope);
  Tensor negative_part;
  if (slope != 0.0) negative_part = activations::relu(threshold != 0.0 ? scalar_like(threshold, x) - x : neg(x));
  Tensor y = threshold != 0.0 ? where(greater(x, scalar_like(threshold, x)), x, zeros_like(x)) : activations::relu(x);
  if (max_value && !max_value->is_null()) {
    if (!max_value->is_number()) c.fail("max_value must be a number or None, but received " + max_value->dump());
    y = clip(y, 0.0, max_value->get<double>());
  }
  if (slope != 0.0) y = y - negative_part * slope;
  return y;
}

Tensor as_bool(const Tensor& x) { return x.dtype() == DType::bool_ ? x : not_equal(x, scalar_like(0.0, x)); }

const std::map<std::string, OpFn>& op_table() {
  static const std::map<std::string, OpFn> table = {
      {"Add", [](const OpCall& c) { return c.operand(0) + c.operand(1); }},
      {"Subtract", [](const OpCall& c) { return c.operand(0) - c.operand(1); }},
      {"Multiply", [](const OpCall& c) { return c.operand(0) * c.operand(1); }},
      {"Divide", [](const OpCall& c) { return c.operand(0) / c.operand(1); }},
      {"TrueDivide", [](const OpCall& c) { return c.operand(0) / c.operand(1); }},
      {"Maximum", [](const OpCall& c) { return maximum(c.operand(0), c.operand(1)); }},
      {"Minimum", [](const OpCall& c) { return minimum(c.operand(0), c.operand(1)); }},
      {"Equal", [](const OpCall& c) { return equal(c.operand(0), c.operand(1)); }},
      {"NotEqual", [](const OpCall& c) { return not_equal(c.operand(0), c.operand(1)); }},
      {"LogicalAnd", [](const OpCall& c) { return logical_and(as_bool(c.operand(0)), as_bool(c.operand(1))); }},
      {"LogicalOr", [](const OpCall& c) { return logical_or(as_bool(c.operand(0)), as_bool(c.operand(1))); }},
      // any/all: the largest/smallest of the inputs as 0/1, compared with 0.
      {"Any",
       [](const OpCall& c) {
         Tensor m = max(cast(as_bool(c.operand(0)), DType::float32), c.axes(1), c.keepdims(2));
         return greater(m, zeros({}, DType::float32));
       }},
      {"All",
       [](const OpCall& c) {
         Tensor m = min(cast(as_bool(c.operand(0)), DType::float32), c.axes(1), c.keepdims(2));
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
      // Activations applied as ops (keras.activations.* on a symbolic tensor):
      // keras.src.ops.nn, and ReLU from keras.src.activations.
      {"Relu", [](const OpCall& c) { return activations::relu(c.operand(0)); }},
      {"Relu6", [](const OpCall& c) { return activations::relu6(c.operand(0)); }},
      {"ReLU", relu_op},
      {"Sigmoid", [](const OpCall& c) { return activations::sigmoid(c.operand(0)); }},
      {"SparseSigmoid", [](const OpCall& c) { return activations::sparse_sigmoid(c.operand(0)); }},
      {"Softplus", [](const OpCall& c) { return activations::softplus(c.operand(0)); }},
      {"Softsign", [](const OpCall& c) { return activations::softsign(c.operand(0)); }},
      {"SoftShrink", [](const OpCall& c) { return activations::soft_shrink(c.operand(0), c.number("threshold", 1, 0.5)); }},
      {"SparsePlus", [](const OpCall& c) { return activations::sparse_plus(c.operand(0)); }},
      {"Silu", [](const OpCall& c) { return activations::silu(c.operand(0)); }},
      {"Squareplus", [](const OpCall& c) { return activations::squareplus(c.operand(0), c.number("b", 1, 4.0)); }},
      {"LogSigmoid", [](const OpCall& c) { return activations::log_sigmoid(c.operand(0)); }},
      {"LeakyRelu",
       [](const OpCall& c) { return activations::leaky_relu(c.operand(0), c.number("negative_slope", 1, 0.2)); }},
      {"HardSigmoid", [](const OpCall& c) { return activations::hard_sigmoid(c.operand(0)); }},
      {"HardSilu", [](const OpCall& c) { return activations::hard_silu(c.operand(0)); }},
      {"Elu", [](const OpCall& c) { return activations::elu(c.operand(0), c.number("alpha", 1, 1.0)); }},
      {"Selu", [](const OpCall& c) { return activations::selu(c.operand(0)); }},
      {"Gelu",
       [](const OpCall& c) {
         const Config* a = c.keyword("approximate", 1);
         return activations::gelu(c.operand(0), !a || !a->is_boolean() || a->get<bool>());
       }},
      {"Celu", [](const OpCall& c) { return activations::celu(c.operand(0), c.number("alpha", 1, 1.0)); }},
      {"Glu", [](const OpCall& c) { return activations::glu(c.operand(0), c.axis(1, -1)); }},
      {"TanhShrink", [](const OpCall& c) { return activations::tanh_shrink(c.operand(0)); }},
      {"HardTanh", [](const OpCall& c) { return activations::hard_tanh(c.operand(0)); }},
      {"HardShrink", [](const OpCall& c) { return activations::hard_shrink(c.operand(0), c.number("threshold", 1, 0.5)); }},
      {"Threshold",
       [](const OpCall& c) {
         const Config* t = c.keyword("threshold", 1);
         const Config* d = c.keyword("default_value", 2);
         if (!t || !t->is_number() || !d || !d->is_number()) c.fail("needs numbers threshold and default_value");
         return activations::threshold(c.operand(0), t->get<double>(), d->get<double>());
       }},
      {"Softmax", [](const OpCall& c) { return activations::softmax(c.operand(0), c.axis(1, -1)); }},
      {"LogSoftmax", [](const OpCall& c) { return activations::log_softmax(c.operand(0), c.axis(1, -1)); }},
      // Element-wise maths of keras.ops (numpy and math modules).
      {"Exp", [](const OpCall& c) { return exp(c.operand(0)); }},
      {"Log", [](const OpCall& c) { return log(c.operand(0)); }},
      {"Log1p", [](const OpCall& c) { return log1p(c.operand(0)); }},
      {"Expm1", [](const OpCall& c) { return expm1(c.operand(0)); }},
      {"Sqrt", [](const OpCall& c) { return sqrt(c.operand(0)); }},
      {"Rsqrt", [](const OpCall& c) { return rsqrt(c.operand(0)); }},
      {"Square", [](const OpCall& c) { return square(c.operand(0)); }},
      {"Absolute", [](const OpCall& c) { return abs(c.operand(0)); }},
      {"Negative", [](const OpCall& c) { return neg(c.operand(0)); }},
      {"Sign", [](const OpCall& c) { return sign(c.operand(0)); }},
      {"Sin", [](const OpCall& c) { return sin(c.operand(0)); }},
      {"Cos", [](const OpCall& c) { return cos(c.operand(0)); }},
      {"Tanh", [](const OpCall& c) { return tanh(c.operand(0)); }},
      {"Erf", [](const OpCall& c) { return erf(c.operand(0)); }},
      {"Floor", [](const OpCall& c) { return floor(c.operand(0)); }},
      {"Concatenate",
       [](const OpCall& c) {
         if (!c.args.is_array() || c.args.empty() || !c.args[0].is_array()) c.fail("expects a list of tensors");
         std::vector<Tensor> xs;
         for (const auto& a : c.args[0]) {
           if (!c.is_slot(a)) c.fail("expects a list of tensors");
           xs.push_back(c.slot(a));
         }
         const Config* a = c.keyword("axis", 1);
         return concat(xs, a && a->is_number_integer() ? a->get<int>() : 0);
       }},
  };
  return table;
}

std::string known_ops() {
  std::string s;
  for (const auto& [k, f] : op_table()) s += (s.empty() ? "" : ", ") + k;
  return s;
}

}  // namespace

bool OperationLayer::supports(const std::string& keras_class) { return op_table().count(keras_class) > 0; }

OperationLayer::OperationLayer(const std::string& keras_class, const Config& config, const Config& args)
    : Layer(LayerOptions{config.is_object() ? config.value("name", "") : "", true, DType::float32}),
      keras_class_(keras_class),
      config_json_((config.is_object() ? config : Config::object()).dump()),
      args_json_(args.dump()) {
  if (!supports(keras_class))
    throw NotFoundError("Operation '" + keras_class + "' is not supported by Kiln; supported keras.ops classes: " +
                        known_ops());
  set_supports_masking(true);  // Keras ops neither use nor warn about masks
}

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
  if (keras_class_ == "Erf" || keras_class_ == "Rsqrt") return "keras.src.ops.math";
  return keras_class_ == "Cast" ? "keras.src.ops.core" : "keras.src.ops.numpy";
}

Config OperationLayer::args_with(const std::vector<Config>& refs) const {
  std::function<Config(const Config&)> sub = [&](const Config& v) -> Config {
    if (v.is_object() && v.contains(kTensorSlot)) return refs.at(v[kTensorSlot].get<std::size_t>());
    if (v.is_array()) {
      Config out = Config::array();
      for (const auto& e : v) out.push_back(sub(e));
      return out;
    }
    return v;
  };
  return sub(Config::parse(args_json_));
}

Tensor OperationLayer::compute_list_mask(const std::vector<Tensor>&, const std::vector<Tensor>&) { return Tensor(); }
Tensor OperationLayer::compute_mask(const Tensor&, const Tensor&) { return Tensor(); }

std::vector<Tensor> OperationLayer::call(const std::vector<Tensor>& xs, bool) {
  const Config config = Config::parse(config_json_), args = Config::parse(args_json_);
  return {op_table().at(keras_class_)(OpCall{keras_class_, config, args, xs})};
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
