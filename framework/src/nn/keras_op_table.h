#pragma once
// keras.ops functions by name: Kiln's counterpart of
// keras.ops.<name>(*tensors, *args, **keywords), called with the tensors and a
// JSON object {"args": [positional values after the tensors], keyword: value}.
// The Keras oracle compares every entry with Keras (tests/oracle/oracle_ops_*.py),
// and a functional config's operation node that no hand-written node covers
// calls the entry of its class's function (operation_layer.cpp).
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/core/tensor.h"

namespace kiln::detail {

/// What a table entry is written with.
namespace keras_op_api {
using json = Config;
using Inputs = std::vector<Tensor>;
using Outputs = std::vector<Tensor>;
/// keras.ops.<name>(*x, *p["args"], **p): every output.
using OpFn = std::function<Outputs(const Inputs& x, const json& p)>;
using OpEntries = std::vector<std::pair<const char*, OpFn>>;

/// Keyword `key` of p, or `fallback` when absent or null.
template <class T>
T param(const json& p, const char* key, T fallback) {
  return p.contains(key) && !p.at(key).is_null() ? p.at(key).get<T>() : fallback;
}
/// Positional argument i (after the tensors) of p, or `fallback` when absent.
template <class T>
T arg(const json& p, std::size_t i, T fallback) {
  return p.contains("args") && p.at("args").size() > i && !p.at("args").at(i).is_null()
             ? p.at("args").at(i).get<T>()
             : fallback;
}
}  // namespace keras_op_api

/// The entry for a keras.ops function name, or null.
const keras_op_api::OpFn* find_keras_op(const std::string& name);

/// A Keras operation class: the keras.ops function it implements, its module,
/// and its constructor's parameters in order (the function's arguments after
/// the tensors, which a node's config holds by name).
struct KerasOpClass {
  const char* class_name;
  const char* function;
  const char* module;
  std::vector<const char*> params;
};
/// Every operation class of Keras's keras.src.ops modules (op_classes.cpp, generated).
const std::vector<KerasOpClass>& keras_op_classes();
/// The class of that name whose function the table has, or null.
const KerasOpClass* find_keras_op_class(const std::string& class_name);

// The tables, one per group of functions (keras_ops/*.cpp).
keras_op_api::OpEntries keras_ops_core_table();
keras_op_api::OpEntries keras_ops_math_table();
keras_op_api::OpEntries keras_ops_reduce_table();
keras_op_api::OpEntries keras_ops_array_table();
keras_op_api::OpEntries keras_ops_bitwise_table();
keras_op_api::OpEntries keras_ops_linalg_table();
keras_op_api::OpEntries keras_ops_nn_table();
keras_op_api::OpEntries keras_ops_fft_table();

}  // namespace kiln::detail
