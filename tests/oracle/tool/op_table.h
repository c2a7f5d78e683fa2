#pragma once
// The keras.ops groups' table (tests/oracle/oracle_ops_*.py): each Keras op name
// maps to a function that calls Kiln's counterpart on the case's inputs and
// keyword arguments and returns every output. Most entries are the library's
// (framework/src/nn/keras_ops/); the oracle's own register from ops_*.cpp here:
//   const oracle::OpEntries math_ops{{"log2", [](const Inputs& x, const json&) { return Outputs{kiln::log2(x[0])}; }}};
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "nn/keras_op_table.h"
#include "oracle_io.h"

namespace oracle {

using Inputs = kiln::detail::keras_op_api::Inputs;
using Outputs = kiln::detail::keras_op_api::Outputs;
/// Kiln's counterpart of keras.ops.<name>(*inputs, *args, **params): `p` holds
/// {"args": [positional values after the tensors], keyword: value, ...}.
using OpFn = kiln::detail::keras_op_api::OpFn;
using kiln::detail::keras_op_api::arg;
using kiln::detail::keras_op_api::param;

/// Registers entries the library's table (framework/src/nn/keras_op_table.h) does
/// not have, when constructed (as a namespace-scope object): ops whose arguments
/// are functions, which the oracle names and both sides define.
struct OpEntries {
  OpEntries(std::initializer_list<std::pair<const char*, OpFn>> entries);
};

/// The entry for a Keras op name: the oracle's own, else the library's; or null.
const OpFn* find_op(const std::string& keras_name);

}  // namespace oracle
