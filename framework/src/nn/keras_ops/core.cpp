// keras.ops functions by name whose Kiln counterparts predate the table
// (kiln/ops/math_ops.h, reduce_ops.h, array_ops.h, nn_ops.h, kiln/nn/activations.h);
// the ops_core oracle group compares them with Keras.
#include <string>
#include <vector>

#include "kiln/nn/activations.h"
#include "kiln/ops/ops.h"
#include "nn/keras_op_table.h"

namespace kiln::detail::keras_ops_core {

using namespace keras_op_api;

namespace {

namespace A = kiln::activations;
using kiln::Tensor;

kiln::Axes axes_of(const json& p) {
  if (!p.contains("axis") || p.at("axis").is_null()) return kiln::Axes();
  if (p.at("axis").is_array()) return kiln::Axes(p.at("axis").get<std::vector<int>>());
  return kiln::Axes(p.at("axis").get<int>());
}

kiln::Shape shape_arg(const json& p, std::size_t i) { return kiln::Shape(p.at("args").at(i).get<std::vector<int64_t>>()); }

using Unary = Tensor (*)(const Tensor&);
using Binary = Tensor (*)(const Tensor&, const Tensor&);
using Reduce = Tensor (*)(const Tensor&, kiln::Axes, bool);

OpFn unary(Unary f) {
  return [f](const Inputs& x, const json&) { return Outputs{f(x[0])}; };
}
OpFn binary(Binary f) {
  return [f](const Inputs& x, const json&) { return Outputs{f(x[0], x[1])}; };
}
OpFn reduce(Reduce f) {
  return [f](const Inputs& x, const json& p) { return Outputs{f(x[0], axes_of(p), param(p, "keepdims", false))}; };
}

const OpEntries math_entries{
    {"abs", unary(kiln::abs)},           {"add", binary(kiln::add)},
    {"subtract", binary(kiln::subtract)}, {"multiply", binary(kiln::multiply)},
    {"divide", binary(kiln::divide)},     {"floor_divide", binary(kiln::floor_divide)},
    {"maximum", binary(kiln::maximum)},   {"minimum", binary(kiln::minimum)},
    {"arctan2", binary(kiln::arctan2)},   {"matmul", [](const Inputs& x, const json&) { return Outputs{kiln::matmul(x[0], x[1])}; }},
    {"equal", binary(kiln::equal)},       {"not_equal", binary(kiln::not_equal)},
    {"less", binary(kiln::less)},         {"less_equal", binary(kiln::less_equal)},
    {"greater", binary(kiln::greater)},   {"greater_equal", binary(kiln::greater_equal)},
    {"logical_and", binary(kiln::logical_and)}, {"logical_or", binary(kiln::logical_or)},
    {"logical_not", unary(kiln::logical_not)},
    {"sign", unary(kiln::sign)},   {"exp", unary(kiln::exp)},     {"expm1", unary(kiln::expm1)},
    {"log", unary(kiln::log)},     {"log1p", unary(kiln::log1p)}, {"sqrt", unary(kiln::sqrt)},
    {"rsqrt", unary(kiln::rsqrt)}, {"square", unary(kiln::square)}, {"sin", unary(kiln::sin)},
    {"cos", unary(kiln::cos)},     {"tanh", unary(kiln::tanh)},   {"erf", unary(kiln::erf)},
    {"floor", unary(kiln::floor)}, {"round", unary(kiln::round)}, {"isnan", unary(kiln::isnan)},
    {"isfinite", unary(kiln::isfinite)},
    {"clip", [](const Inputs& x, const json& p) {
       return Outputs{kiln::clip(x[0], arg(p, 0, 0.0), arg(p, 1, 0.0))};
     }},
};

const OpEntries reduce_entries{
    {"sum", reduce(kiln::sum)},   {"mean", reduce(kiln::mean)}, {"max", reduce(kiln::max)},
    {"min", reduce(kiln::min)},   {"prod", reduce(kiln::prod)}, {"var", reduce(kiln::var)},
    {"std", reduce(kiln::std)},   {"logsumexp", reduce(kiln::logsumexp)},
    {"argmax", [](const Inputs& x, const json& p) { return Outputs{kiln::argmax(x[0], param(p, "axis", -1))}; }},
    {"argmin", [](const Inputs& x, const json& p) { return Outputs{kiln::argmin(x[0], param(p, "axis", -1))}; }},
};

const OpEntries array_entries{
    {"reshape", [](const Inputs& x, const json& p) { return Outputs{kiln::reshape(x[0], shape_arg(p, 0))}; }},
    {"transpose", [](const Inputs& x, const json& p) {
       return Outputs{kiln::transpose(x[0], param(p, "axes", std::vector<int>{}))};
     }},
    {"expand_dims", [](const Inputs& x, const json& p) { return Outputs{kiln::expand_dims(x[0], arg(p, 0, 0))}; }},
    {"squeeze", [](const Inputs& x, const json& p) {
       const json& a = p.contains("axis") ? p.at("axis") : json();
       return Outputs{kiln::squeeze(x[0], a.is_null() ? std::vector<int>{}
                                          : a.is_array() ? a.get<std::vector<int>>() : std::vector<int>{a.get<int>()})};
     }},
    {"broadcast_to", [](const Inputs& x, const json& p) { return Outputs{kiln::broadcast_to(x[0], shape_arg(p, 0))}; }},
    {"tile", [](const Inputs& x, const json& p) {
       return Outputs{kiln::tile(x[0], p.at("args").at(0).get<std::vector<int64_t>>())};
     }},
    {"concatenate", [](const Inputs& x, const json& p) { return Outputs{kiln::concat(x, param(p, "axis", 0))}; }},
    {"stack", [](const Inputs& x, const json& p) { return Outputs{kiln::stack(x, param(p, "axis", 0))}; }},
    {"split", [](const Inputs& x, const json& p) {
       return kiln::split(x[0], arg(p, 0, int64_t{1}), param(p, "axis", 0));
     }},
    {"where", [](const Inputs& x, const json&) { return Outputs{kiln::where(x[0], x[1], x[2])}; }},
    {"one_hot", [](const Inputs& x, const json& p) {
       return Outputs{kiln::one_hot(x[0], arg(p, 0, int64_t{1}))};
     }},
    {"cast", [](const Inputs& x, const json& p) {
       return Outputs{kiln::cast(x[0], kiln::dtype_from_name(arg(p, 0, std::string("float32"))))};
     }},
    {"stop_gradient", unary(kiln::stop_gradient)},
    {"nonzero", [](const Inputs& x, const json&) { return kiln::nonzero(x[0]); }},
    {"einsum", [](const Inputs& x, const json& p) { return Outputs{kiln::einsum(p.at("equation"), x)}; }},
    {"softmax", [](const Inputs& x, const json& p) { return Outputs{kiln::softmax(x[0], param(p, "axis", -1))}; }},
    {"log_softmax", [](const Inputs& x, const json& p) {
       return Outputs{kiln::log_softmax(x[0], param(p, "axis", -1))};
     }},
    {"normalize", [](const Inputs& x, const json& p) {
       return Outputs{kiln::normalize(x[0], param(p, "axis", -1), param(p, "order", 2))};
     }},
    {"zeros_like", unary(kiln::zeros_like)},
    {"zeros", [](const Inputs&, const json& p) {
       return Outputs{kiln::zeros(shape_arg(p, 0), kiln::dtype_from_name(param(p, "dtype", std::string("float32"))))};
     }},
    {"ones", [](const Inputs&, const json& p) {
       return Outputs{kiln::ones(shape_arg(p, 0), kiln::dtype_from_name(param(p, "dtype", std::string("float32"))))};
     }},
    {"copy", unary(kiln::copy)},
    {"unique", [](const Inputs& x, const json&) { return Outputs{kiln::unique(x[0])}; }},
    {"scatter", [](const Inputs& x, const json& p) { return Outputs{kiln::scatter(x[0], x[1], shape_arg(p, 0))}; }},
    {"scatter_update", [](const Inputs& x, const json&) { return Outputs{kiln::scatter_update(x[0], x[1], x[2])}; }},
    {"slice", [](const Inputs& x, const json& p) {
       const auto start = p.at("args").at(0).get<std::vector<int64_t>>(), size = p.at("args").at(1).get<std::vector<int64_t>>();
       std::vector<kiln::Index> idx;
       for (std::size_t i = 0; i < start.size(); ++i) idx.emplace_back(kiln::Slice(start[i], start[i] + size[i]));
       return Outputs{kiln::slice(x[0], idx)};
     }},
    {"ones_like", unary(kiln::ones_like)},
};

// keras.ops' symmetric windows (numpy.hamming, ...): scipy's windows with fftbins=False.
OpFn window(const char* name) {
  return [name](const Inputs&, const json& p) { return Outputs{kiln::get_window(name, arg(p, 0, int64_t{1}), false)}; };
}

const OpEntries window_entries{
    {"hamming", window("hamming")}, {"hanning", window("hann")},
    {"blackman", window("blackman")}, {"bartlett", window("bartlett")},
};

const OpEntries activation_entries{
    {"relu", unary(A::relu)},           {"relu6", unary(A::relu6)},         {"sigmoid", unary(A::sigmoid)},
    {"softplus", unary(A::softplus)},   {"selu", unary(A::selu)},           {"silu", unary(A::silu)},
    {"swish", unary(A::silu)},          {"softsign", unary(A::softsign)},   {"hard_sigmoid", unary(A::hard_sigmoid)},
    {"hard_silu", unary(A::hard_silu)}, {"hard_swish", unary(A::hard_silu)}, {"hard_tanh", unary(A::hard_tanh)},
    {"log_sigmoid", unary(A::log_sigmoid)}, {"sparse_plus", unary(A::sparse_plus)},
    {"sparse_sigmoid", unary(A::sparse_sigmoid)}, {"tanh_shrink", unary(A::tanh_shrink)},
    {"elu", [](const Inputs& x, const json& p) { return Outputs{A::elu(x[0], param(p, "alpha", 1.0))}; }},
    {"celu", [](const Inputs& x, const json& p) { return Outputs{A::celu(x[0], param(p, "alpha", 1.0))}; }},
    {"gelu", [](const Inputs& x, const json& p) { return Outputs{A::gelu(x[0], param(p, "approximate", true))}; }},
    {"glu", [](const Inputs& x, const json& p) { return Outputs{A::glu(x[0], param(p, "axis", -1))}; }},
    {"leaky_relu", [](const Inputs& x, const json& p) {
       return Outputs{A::leaky_relu(x[0], param(p, "negative_slope", 0.2))};
     }},
    {"hard_shrink", [](const Inputs& x, const json& p) {
       return Outputs{A::hard_shrink(x[0], param(p, "threshold", 0.5))};
     }},
    {"soft_shrink", [](const Inputs& x, const json& p) {
       return Outputs{A::soft_shrink(x[0], param(p, "threshold", 0.5))};
     }},
    {"squareplus", [](const Inputs& x, const json& p) { return Outputs{A::squareplus(x[0], param(p, "b", 4.0))}; }},
    {"threshold", [](const Inputs& x, const json& p) {
       return Outputs{A::threshold(x[0], arg(p, 0, 0.0), arg(p, 1, 0.0))};
     }},
};

}  // namespace

}  // namespace kiln::detail::keras_ops_core

namespace kiln::detail {

keras_op_api::OpEntries keras_ops_core_table() {
  keras_op_api::OpEntries all;
  for (const auto* group : {&keras_ops_core::math_entries,
                             &keras_ops_core::reduce_entries,
                             &keras_ops_core::array_entries,
                             &keras_ops_core::window_entries,
                             &keras_ops_core::activation_entries})
    all.insert(all.end(), group->begin(), group->end());
  return all;
}

}  // namespace kiln::detail
