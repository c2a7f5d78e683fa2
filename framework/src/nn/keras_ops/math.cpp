// keras.ops element-wise maths by name (kiln/ops/elementwise_math.h and math_ops.h);
// the ops_math oracle group (tests/oracle/oracle_ops_math.py) compares them with Keras.
#include <optional>

#include "kiln/ops/elementwise_math.h"
#include "kiln/ops/math_ops.h"
#include "nn/keras_op_table.h"

namespace kiln::detail::keras_ops_math {

using namespace keras_op_api;

namespace {


template <kiln::Tensor (*F)(const kiln::Tensor&)>
OpFn unary() {
  return [](const Inputs& x, const json&) { return Outputs{F(x[0])}; };
}
template <kiln::Tensor (*F)(const kiln::Tensor&, const kiln::Tensor&)>
OpFn binary() {
  return [](const Inputs& x, const json&) { return Outputs{F(x[0], x[1])}; };
}

std::optional<double> optional_param(const json& p, const char* key) {
  if (!p.contains(key) || p.at(key).is_null()) return std::nullopt;
  return p.at(key).get<double>();
}

Outputs closeness(const Inputs& x, const json& p, bool all) {
  const double rtol = param(p, "rtol", 1e-5), atol = param(p, "atol", 1e-8);
  const bool equal_nan = param(p, "equal_nan", false);
  return Outputs{all ? kiln::allclose(x[0], x[1], rtol, atol, equal_nan)
                     : kiln::isclose(x[0], x[1], rtol, atol, equal_nan)};
}

const OpEntries entries{
    {"absolute", unary<kiln::absolute>()},
    {"fabs", unary<kiln::fabs>()},
    {"negative", unary<kiln::negative>()},
    {"power", binary<kiln::power>()},
    {"true_divide", binary<kiln::true_divide>()},
    {"mod", binary<kiln::mod>()},
    {"conjugate", unary<kiln::conjugate>()},
    {"conj", unary<kiln::conj>()},
    {"real", unary<kiln::real>()},
    {"imag", unary<kiln::imag>()},
    {"angle", unary<kiln::angle>()},
    {"isreal", unary<kiln::isreal>()},
    {"reciprocal", unary<kiln::reciprocal>()},
    {"ceil", unary<kiln::ceil>()},
    {"trunc", unary<kiln::trunc>()},
    {"signbit", unary<kiln::signbit>()},
    {"tan", unary<kiln::tan>()},
    {"arcsin", unary<kiln::arcsin>()},
    {"arccos", unary<kiln::arccos>()},
    {"arctan", unary<kiln::arctan>()},
    {"sinh", unary<kiln::sinh>()},
    {"cosh", unary<kiln::cosh>()},
    {"arcsinh", unary<kiln::arcsinh>()},
    {"arccosh", unary<kiln::arccosh>()},
    {"arctanh", unary<kiln::arctanh>()},
    {"deg2rad", unary<kiln::deg2rad>()},
    {"rad2deg", unary<kiln::rad2deg>()},
    {"sinc", unary<kiln::sinc>()},
    {"hypot", binary<kiln::hypot>()},
    {"exp2", unary<kiln::exp2>()},
    {"log2", unary<kiln::log2>()},
    {"log10", unary<kiln::log10>()},
    {"logaddexp", binary<kiln::logaddexp>()},
    {"logaddexp2", binary<kiln::logaddexp2>()},
    {"cbrt", unary<kiln::cbrt>()},
    {"erfc", unary<kiln::erfc>()},
    {"erfinv", unary<kiln::erfinv>()},
    {"i0", unary<kiln::i0>()},
    {"ldexp", binary<kiln::ldexp>()},
    {"isinf", unary<kiln::isinf>()},
    {"isposinf", unary<kiln::isposinf>()},
    {"isneginf", unary<kiln::isneginf>()},
    {"isclose", [](const Inputs& x, const json& p) { return closeness(x, p, false); }},
    {"allclose", [](const Inputs& x, const json& p) { return closeness(x, p, true); }},
    {"fmax", binary<kiln::fmax>()},
    {"fmin", binary<kiln::fmin>()},
    {"fmod", binary<kiln::fmod>()},
    {"heaviside", binary<kiln::heaviside>()},
    {"logical_xor", binary<kiln::logical_xor>()},
    {"nan_to_num",
     [](const Inputs& x, const json& p) {
       return Outputs{kiln::nan_to_num(x[0], param(p, "nan", 0.0), optional_param(p, "posinf"),
                                       optional_param(p, "neginf"))};
     }},
    {"divide_no_nan", binary<kiln::divide_no_nan>()},
};

}  // namespace

}  // namespace kiln::detail::keras_ops_math

namespace kiln::detail {

keras_op_api::OpEntries keras_ops_math_table() {
  keras_op_api::OpEntries all;
  for (const auto* group : {&keras_ops_math::entries})
    all.insert(all.end(), group->begin(), group->end());
  return all;
}

}  // namespace kiln::detail
