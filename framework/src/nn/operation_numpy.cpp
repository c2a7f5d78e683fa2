// keras.ops array and reduction ops as functional-graph nodes (keras.src.ops.numpy,
// .math, .nn and .core classes beyond the element-wise ones): each Keras op class
// maps to Kiln's function, with the op's constructor keywords from its config.
#include <cmath>

#include "kiln/ops/einsum.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "nn/operation_call.h"

namespace kiln::detail {

namespace {

/// Every positional tensor (Einsum's operands).
std::vector<Tensor> all_tensors(const OpCall& c) {
  std::vector<Tensor> xs;
  for (const auto& a : c.args)
    if (c.is_slot(a)) xs.push_back(c.slot(a));
  return xs;
}

std::optional<DType> dtype_keyword(const OpCall& c, const char* key, std::size_t position) {
  const Config* d = c.keyword(key, position);
  if (!d || d->is_null()) return std::nullopt;
  if (!d->is_string()) c.fail(std::string(key) + " must be a dtype name, but received " + d->dump());
  return dtype_from_name(d->get<std::string>());
}

/// Argmax/Argmin: axis None takes the index in the flattened tensor, as NumPy.
Tensor arg_reduce(const OpCall& c, Tensor (*f)(const Tensor&, int)) {
  Tensor x = c.operand(0);
  const Config* a = c.keyword("axis", 1);
  const bool flat = !a || a->is_null();
  const int axis = flat ? 0 : c.axis(1, -1);
  Tensor y = cast(f(flat ? reshape(x, Shape({-1})) : x, axis), DType::int32);
  if (!c.keepdims(2)) return y;
  if (flat) return reshape(y, Shape(std::vector<int64_t>(static_cast<std::size_t>(x.rank()), 1)));
  return expand_dims(y, axis);
}

/// jnp.round(x, decimals): scales by 10^decimals, rounds half to even, scales back.
Tensor round_op(const OpCall& c) {
  Tensor x = c.operand(0);
  const double d = c.number("decimals", 1, 0.0);
  if (d == 0.0 || !is_floating(x.dtype())) return round(x);
  const double scale = std::pow(10.0, d);
  return round(x * scale) / scale;
}

/// One entry of a GetItem key as Keras serializes it: an int, None (a new axis),
/// a "__slice__" or an "__ellipsis__".
Index index_entry(const OpCall& c, const Config& e) {
  if (e.is_number_integer()) return Index(e.get<int64_t>());
  if (e.is_null()) return Index(newaxis);
  const std::string kind = e.is_object() ? e.value("class_name", "") : "";
  if (kind == "__ellipsis__") return Index(ellipsis);
  if (kind == "__slice__") {
    const Config& s = e.at("config");
    auto bound = [&](const char* k) -> std::optional<int64_t> {
      if (!s.contains(k) || s.at(k).is_null()) return std::nullopt;
      if (!s.at(k).is_number_integer()) c.fail(std::string("slice ") + k + " must be an int or None, but received " +
                                                s.at(k).dump());
      return s.at(k).get<int64_t>();
    };
    return Index(Slice(bound("start"), bound("stop"), bound("step").value_or(1)));
  }
  c.fail("supports int, slice, None and Ellipsis subscripts, but received " + e.dump().substr(0, 80));
}

/// x[key]: Keras's GetItem with the key as its second argument.
Tensor get_item(const OpCall& c) {
  if (!c.args.is_array() || c.args.size() < 2) c.fail("expects a tensor and a key");
  const Config key = OpCall::untuple(c.args[1]);
  std::vector<Index> idx;
  if (key.is_array()) {
    for (const auto& e : key) idx.push_back(index_entry(c, OpCall::untuple(e)));
  } else {
    idx.push_back(index_entry(c, key));
  }
  return slice(c.operand(0), idx);
}

Tensor reduce_op(const OpCall& c, Tensor (*f)(const Tensor&, Axes, bool)) {
  return f(c.operand(0), c.axes(1), c.keepdims(2));
}

}  // namespace

std::map<std::string, OpFn> numpy_operations() {
  return {
      {"FloorDivide", [](const OpCall& c) { return floor_divide(c.operand(0), c.operand(1)); }},
      {"Mod", [](const OpCall& c) { return floor_mod(c.operand(0), c.operand(1)); }},
      {"Power", [](const OpCall& c) { return pow(c.operand(0), c.operand(1)); }},
      {"Arctan2", [](const OpCall& c) { return arctan2(c.operand(0), c.operand(1)); }},
      {"Matmul", [](const OpCall& c) { return matmul(c.operand(0), c.operand(1)); }},
      {"Less", [](const OpCall& c) { return less(c.operand(0), c.operand(1)); }},
      {"LessEqual", [](const OpCall& c) { return less_equal(c.operand(0), c.operand(1)); }},
      {"Greater", [](const OpCall& c) { return greater(c.operand(0), c.operand(1)); }},
      {"GreaterEqual", [](const OpCall& c) { return greater_equal(c.operand(0), c.operand(1)); }},
      {"LogicalNot", [](const OpCall& c) { return logical_not(OpCall::as_bool(c.operand(0))); }},
      {"Round", round_op},
      {"Isnan", [](const OpCall& c) { return isnan(c.operand(0)); }},
      {"Isfinite", [](const OpCall& c) { return isfinite(c.operand(0)); }},
      {"Clip",
       [](const OpCall& c) { return clip(c.operand(0), c.number("x_min", 1, 0.0), c.number("x_max", 2, 0.0)); }},
      {"Prod", [](const OpCall& c) { return reduce_op(c, prod); }},
      {"Var", [](const OpCall& c) { return reduce_op(c, var); }},
      {"Std", [](const OpCall& c) { return reduce_op(c, std); }},
      {"Logsumexp", [](const OpCall& c) { return reduce_op(c, logsumexp); }},
      {"Argmax", [](const OpCall& c) { return arg_reduce(c, argmax); }},
      {"Argmin", [](const OpCall& c) { return arg_reduce(c, argmin); }},
      {"Tile",
       [](const OpCall& c) {
         const Config* r = c.keyword("repeats", 1);
         if (!r) c.fail("needs repeats");
         std::vector<int64_t> reps;
         for (int v : c.ints(*r, "repeats")) reps.push_back(v);
         return tile(c.operand(0), reps);
       }},
      {"Stack", [](const OpCall& c) { return stack(c.tensor_list(0), c.axis(1, 0)); }},
      {"Where", [](const OpCall& c) { return where(OpCall::as_bool(c.operand(0)), c.operand(1), c.operand(2)); }},
      {"Einsum",
       [](const OpCall& c) {
         const Config* s = c.keyword("subscripts", 0);
         if (!s || !s->is_string()) c.fail("needs subscripts");
         return einsum(s->get<std::string>(), all_tensors(c));
       }},
      {"ZerosLike",
       [](const OpCall& c) {
         Tensor z = zeros_like(c.operand(0));
         const auto d = dtype_keyword(c, "dtype", 1);
         return d ? cast(z, *d) : z;
       }},
      {"OnesLike",
       [](const OpCall& c) {
         Tensor o = ones_like(c.operand(0));
         const auto d = dtype_keyword(c, "dtype", 1);
         return d ? cast(o, *d) : o;
       }},
      {"StopGradient", [](const OpCall& c) { return stop_gradient(c.operand(0)); }},
      {"GetItem", get_item},
      {"OneHot",
       [](const OpCall& c) {
         if (c.axis(2, -1) != -1) c.fail("supports axis=-1 only");
         const double n = c.number("num_classes", 1, -1.0);
         if (n < 1) c.fail("needs num_classes >= 1");
         return one_hot(c.operand(0), static_cast<int64_t>(n), dtype_keyword(c, "dtype", 3).value_or(DType::float32));
       }},
      {"Normalize",
       [](const OpCall& c) {
         const Config* e = c.keyword("epsilon", 3);
         std::optional<double> eps;
         if (e && !e->is_null()) eps = c.number("epsilon", 3, 0.0);
         return normalize(c.operand(0), c.axis(1, -1), static_cast<int>(c.number("order", 2, 2.0)), eps);
       }},
  };
}

const std::map<std::string, std::string>& numpy_operation_modules() {
  static const std::map<std::string, std::string> modules = {
      {"Logsumexp", "keras.src.ops.math"}, {"StopGradient", "keras.src.ops.core"},
      {"OneHot", "keras.src.ops.nn"},      {"Normalize", "keras.src.ops.nn"}};
  return modules;
}

}  // namespace kiln::detail
