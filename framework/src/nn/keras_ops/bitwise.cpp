// keras.ops bitwise and integer maths (kiln/ops/bitwise_ops.h) and layout utilities
// (kiln/ops/layout_ops.h) by name; the ops_control oracle group
// (tests/oracle/oracle_ops_control.py) compares them with Keras.
#include <map>
#include <optional>
#include <string>

#include "kiln/ops/bitwise_ops.h"
#include "kiln/ops/layout_ops.h"
#include "nn/keras_op_table.h"

namespace kiln::detail::keras_ops_bitwise {

using namespace keras_op_api;

namespace {

template <Tensor (*F)(const Tensor&, const Tensor&)>
OpFn binary() {
  return [](const Inputs& x, const json&) { return Outputs{F(x[0], x[1])}; };
}
/// A shift: by the second tensor, or by a number in params["args"] (Keras's Python int).
template <Tensor (*F)(const Tensor&, const Tensor&), Tensor (*G)(const Tensor&, int64_t)>
OpFn shift() {
  return [](const Inputs& x, const json& p) {
    return x.size() == 1 ? Outputs{G(x[0], arg<int64_t>(p, 0, 0))} : Outputs{F(x[0], x[1])};
  };
}
template <Tensor (*F)(const Tensor&)>
OpFn unary() {
  return [](const Inputs& x, const json&) { return Outputs{F(x[0])}; };
}

Outputs rearrange_case(const Inputs& x, const json& p) {
  std::map<std::string, int64_t> lengths;
  for (const auto& [k, v] : p.items())
    if (k != "pattern" && k != "args") lengths[k] = v.get<int64_t>();
  return {kiln::rearrange(x[0], p.at("pattern").get<std::string>(), lengths)};
}

std::optional<kiln::DType> dtype_param(const json& p) {
  if (!p.contains("dtype") || p.at("dtype").is_null()) return std::nullopt;
  return kiln::dtype_from_name(p.at("dtype").get<std::string>());
}

const OpEntries entries{
    {"bitwise_and", binary<kiln::bitwise_and>()},
    {"bitwise_or", binary<kiln::bitwise_or>()},
    {"bitwise_xor", binary<kiln::bitwise_xor>()},
    {"bitwise_invert", unary<kiln::bitwise_invert>()},
    {"bitwise_not", unary<kiln::bitwise_not>()},
    {"bitwise_left_shift", shift<kiln::bitwise_left_shift, kiln::bitwise_left_shift>()},
    {"left_shift", shift<kiln::left_shift, kiln::left_shift>()},
    {"bitwise_right_shift", shift<kiln::bitwise_right_shift, kiln::bitwise_right_shift>()},
    {"right_shift", shift<kiln::right_shift, kiln::right_shift>()},
    {"gcd", binary<kiln::gcd>()},
    {"lcm", binary<kiln::lcm>()},
    {"nextafter", binary<kiln::nextafter>()},
    {"unravel_index",
     [](const Inputs& x, const json& p) {
       return kiln::unravel_index(x[0], kiln::Shape(p.at("shape").get<std::vector<int64_t>>()));
     }},
    {"rearrange", rearrange_case},
    {"empty",
     [](const Inputs&, const json& p) {
       return Outputs{kiln::empty(kiln::Shape(p.at("shape").get<std::vector<int64_t>>()),
                                  dtype_param(p).value_or(kiln::DType::float32))};
     }},
    {"view", [](const Inputs& x, const json& p) { return Outputs{kiln::view(x[0], dtype_param(p))}; }},
    {"view_as_complex",
     [](const Inputs& x, const json&) {
       auto [re, im] = kiln::view_as_complex(x[0]);
       return Outputs{re, im};
     }},
    {"view_as_real", [](const Inputs& x, const json&) { return Outputs{kiln::view_as_real(x[0], x[1])}; }},
};

}  // namespace

}  // namespace kiln::detail::keras_ops_bitwise

namespace kiln::detail {

keras_op_api::OpEntries keras_ops_bitwise_table() { return keras_ops_bitwise::entries; }

}  // namespace kiln::detail
