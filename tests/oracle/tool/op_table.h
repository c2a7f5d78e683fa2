#pragma once
// The keras.ops groups' table (tests/oracle/oracle_ops_*.py): each Keras op name
// maps to a function that calls Kiln's counterpart on the case's inputs and
// keyword arguments and returns every output. Entries register themselves from
// the ops_*.cpp files, one file per group, so groups never edit a shared list:
//   const oracle::OpEntries math_ops{{"log2", [](const Inputs& x, const json&) { return Outputs{kiln::log2(x[0])}; }}};
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "oracle_io.h"

namespace oracle {

using Inputs = std::vector<kiln::Tensor>;
using Outputs = std::vector<kiln::Tensor>;
/// Kiln's counterpart of keras.ops.<name>(*inputs, *args, **params): `p` holds
/// {"args": [positional values after the tensors], keyword: value, ...}.
using OpFn = std::function<Outputs(const Inputs& x, const json& p)>;

/// Registers entries when constructed (as a namespace-scope object).
struct OpEntries {
  OpEntries(std::initializer_list<std::pair<const char*, OpFn>> entries);
};

/// The entry for a Keras op name, or null.
const OpFn* find_op(const std::string& keras_name);

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

}  // namespace oracle
