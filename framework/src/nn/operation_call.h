#pragma once
// What a keras.ops node's implementation sees (operation_layer.cpp): Keras's
// op config and positional arguments, with tensor slots resolved, and helpers
// for Keras's conventions (a Python number as an operand, axis as None, an
// int or a list).
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/nn/operation_layer.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln::detail {

struct OpCall {
  const std::string& cls;
  const Config& config;
  const Config& args;
  const std::vector<Tensor>& tensors;
  const Config& kwargs;  ///< The call's keyword arguments, with tensor slots.

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
  /// Positional argument i as a list of tensors (Concatenate's and Stack's [[a, b]]).
  std::vector<Tensor> tensor_list(std::size_t i) const {
    if (!args.is_array() || i >= args.size() || !args[i].is_array()) fail("expects a list of tensors");
    std::vector<Tensor> xs;
    for (const auto& a : args[i]) {
      if (!is_slot(a)) fail("expects a list of tensors");
      xs.push_back(slot(a));
    }
    return xs;
  }
  /// x as bool, nonzero meaning true (Keras's logical ops on numbers).
  static Tensor as_bool(const Tensor& x) {
    return x.dtype() == DType::bool_ ? x : not_equal(x, scalar_like(0.0, x));
  }
  bool keepdims(std::size_t position) const {
    const Config* v = keyword("keepdims", position);
    return v && v->is_boolean() && v->get<bool>();
  }
};

using OpFn = std::function<Tensor(const OpCall&)>;

/// Activations and element-wise maths of keras.ops, by Keras op class
/// (operation_elementwise.cpp).
std::map<std::string, OpFn> elementwise_operations();
/// Array, reduction and other keras.ops classes (operation_numpy.cpp).
std::map<std::string, OpFn> numpy_operations();
/// The Keras module of each class numpy_operations() has outside keras.src.ops.numpy.
const std::map<std::string, std::string>& numpy_operation_modules();

}  // namespace kiln::detail
