// The ops_control group's own entries (tests/oracle/oracle_ops_control.py): keras.ops'
// control flow against kiln/ops/functional_ops.h and kiln/graph/control_flow.h. A case
// names its function in params["fn"]; each is defined here as the Python side defines
// it. The group's bitwise, integer and layout ops are the library's table entries
// (framework/src/nn/keras_ops/bitwise.cpp).
#include <map>
#include <stdexcept>
#include <string>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/graph/control_flow.h"
#include "kiln/ops/functional_ops.h"
#include "kiln/ops/ops.h"
#include "op_table.h"

namespace {

using kiln::Tensor;
using oracle::Inputs;
using oracle::json;
using oracle::Outputs;
using oracle::param;
using TL = std::vector<Tensor>;

std::string fn_of(const json& p) { return p.at("fn").get<std::string>(); }
[[noreturn]] void unknown_fn(const char* op, const json& p) {
  throw std::runtime_error(std::string(op) + ": no function named '" + fn_of(p) + "' in ops_control.cpp");
}
Tensor f32(const Tensor& t) { return kiln::cast(t, kiln::DType::float32); }

Tensor fori_body(const Tensor& i, const Tensor& s) { return s * 0.9 + kiln::sin(s) + f32(i); }

Outputs fori(const Inputs& x, const json& p) {
  const std::string fn = fn_of(p);
  if (fn == "poly") return {kiln::fori_loop(param(p, "lower", 0), param(p, "upper", 4), fori_body, x[0])};
  if (fn == "poly_tensor_upper") return {kiln::fori_loop(0, x[1], fori_body, x[0])};
  if (fn == "pair")
    return kiln::fori_loop(
        0, 3,
        [](const Tensor& i, const TL& s) { return TL{s[0] * s[1] + 0.1, s[1] - kiln::tanh(s[0]) * f32(i)}; },
        TL{x[0], x[1]});
  unknown_fn("fori_loop", p);
}

Outputs scan(const Inputs& x, const json& p) {
  const std::string fn = fn_of(p);
  kiln::ScanOptions o{.reverse = param(p, "reverse", false), .unroll = param(p, "unroll", 1)};
  if (fn == "step") {
    auto [c, ys] = kiln::scan(
        [](const Tensor& carry, const Tensor& xt) { return std::pair{carry * 0.5 + kiln::sin(xt), carry * xt}; },
        x[0], x[1], o);
    return {c, ys};
  }
  if (fn == "pair") {
    auto [c, ys] = kiln::scan(
        [](const TL& c, const TL& xt) {
          return std::pair{TL{c[0] + xt[0] * c[1], c[1] * 0.9 + xt[1]}, TL{c[0] * xt[1]}};
        },
        TL{x[0], x[1]}, TL{x[2], x[3]}, o);
    return {c[0], c[1], ys[0]};
  }
  if (fn == "count") {
    o.length = param<int64_t>(p, "length", 0);
    auto [c, ys] = kiln::scan(
        [](const TL& c, const TL&) { return std::pair{TL{c[0] * 1.5 + 1.0}, TL{kiln::square(c[0])}}; }, TL{x[0]},
        {}, o);
    return {c[0], ys[0]};
  }
  unknown_fn("scan", p);
}

Outputs associative(const Inputs& x, const json& p) {
  const std::string fn = fn_of(p);
  const bool reverse = param(p, "reverse", false);
  const int axis = param(p, "axis", 0);
  if (fn == "add") return {kiln::associative_scan([](const Tensor& a, const Tensor& b) { return a + b; }, x[0], reverse, axis)};
  if (fn == "max")
    return {kiln::associative_scan([](const Tensor& a, const Tensor& b) { return kiln::maximum(a, b); }, x[0],
                                   reverse, axis)};
  if (fn == "affine")
    return kiln::associative_scan(
        [](const TL& a, const TL& b) { return TL{a[0] * b[0], b[0] * a[1] + b[1]}; }, TL{x[0], x[1]}, reverse, axis);
  unknown_fn("associative_scan", p);
}

Tensor sin_sum(const Tensor& v) { return kiln::sin(v) * kiln::sum(v); }

Outputs vectorize(const Inputs& x, const json& p) {
  const std::string fn = fn_of(p);
  if (fn == "dot")
    return {kiln::vectorize([](const TL& a) { return kiln::sum(a[0] * a[1]); }, "(n),(n)->()")({x[0], x[1]})};
  if (fn == "matvec")
    return {kiln::vectorize([](const TL& a) { return kiln::sum(a[0] * a[1], -1); }, "(m,n),(n)->(m)")({x[0], x[1]})};
  if (fn == "scalar")
    return {kiln::vectorize([](const TL& a) { return a[0] * a[1] + kiln::sin(a[0]); })({x[0], x[1]})};
  unknown_fn("vectorize", p);
}

Outputs switch_case(const Inputs& x, const json&) {
  std::vector<kiln::SwitchBranch> branches{
      [](const TL& o) { return TL{o[0] + o[1]}; },
      [](const TL& o) { return TL{o[0] * o[1] - 1.0}; },
      [](const TL& o) { return TL{kiln::sin(o[0]) - o[1]}; },
  };
  return kiln::switch_(x[0], branches, {x[1], x[2]});
}

Outputs while_case(const Inputs& x, const json& p) {
  kiln::WhileOptions o;
  if (p.contains("maximum_iterations")) o.maximum_iterations = p.at("maximum_iterations").get<int64_t>();
  return kiln::while_loop([](const TL& v) { return kiln::sum(v[0]) < 10.0; }, [](const TL& v) { return TL{v[0] * 1.5 + 1.0}; },
                          {x[0]}, o);
}

Outputs custom_gradient_case(const Inputs& x, const json&) {
  auto clipped_square = kiln::custom_gradient([](const Tensor& v) {
    return kiln::CustomGradientResult{kiln::square(v),
                                      [v](const Tensor& dy) { return TL{kiln::clip(dy * 2.0 * v, -0.5, 0.5)}; }};
  });
  return {clipped_square(x[0])};
}

Outputs jvp_case(const Inputs& x, const json&) {
  auto [ys, ts] = kiln::jvp(
      [](const TL& a) { return TL{kiln::sin(a[0]) * a[1] + kiln::square(a[0]), kiln::sum(kiln::exp(a[0] * a[1]))}; },
      {x[0], x[1]}, {x[2], x[3]});
  return {ys[0], ys[1], ts[0], ts[1]};
}

Outputs jvp_aux_case(const Inputs& x, const json&) {
  auto r = kiln::jvp(
      [](const TL& a) { return std::pair{TL{kiln::tanh(a[0]) * 3.0}, TL{kiln::square(a[0]) + 1.0}}; }, {x[0]},
      {x[1]});
  return {r.outputs[0], r.tangents[0], r.aux[0]};
}

const oracle::OpEntries entries{
    {"cond",
     [](const Inputs& x, const json&) {
       return Outputs{kiln::cond(x[0], [&] { return kiln::sin(x[1]) * 2.0; }, [&] { return kiln::cos(x[1]); })};
     }},
    {"while_loop", while_case},
    {"fori_loop", fori},
    {"scan", scan},
    {"associative_scan", associative},
    {"map", [](const Inputs& x, const json&) { return Outputs{kiln::map(sin_sum, x[0])}; }},
    {"vectorized_map", [](const Inputs& x, const json&) { return Outputs{kiln::vectorized_map(sin_sum, x[0])}; }},
    {"vectorize", vectorize},
    {"switch", switch_case},
    {"custom_gradient", custom_gradient_case},
    {"jvp", [](const Inputs& x, const json& p) { return fn_of(p) == "aux" ? jvp_aux_case(x, p) : jvp_case(x, p); }},
};

}  // namespace
