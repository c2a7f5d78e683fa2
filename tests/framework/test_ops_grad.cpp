// Gradient checks (tape vs central differences in float64) for every
// differentiable op in math_ops.h, array_ops.h, reduce_ops.h and nn_ops.h,
// plus hand-computed values for conv2d and pooling.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/autodiff/gradient_check.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/ops/ops.h"
#include "kiln/core/tensor.h"
#include "kiln/autodiff/variable.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_ops_grad {

namespace k = kiln;
using k::Slice;
using T = k::Tensor;
using Ins = std::vector<k::Tensor>;

namespace {
void check_values(const k::Tensor& t, const std::vector<double>& expected, double eps = 1e-6) {
  auto got = t.to_vector<double>();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element ", i);
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(eps));
  }
}

void grad_ok(const std::string& name, const std::function<T(const Ins&)>& f, const Ins& inputs,
             k::GradientCheckOptions o = {}) {
  auto r = k::check_gradients(f, inputs, o);
  INFO(name, ": ", r.report, " (max abs error ", r.max_abs_error, ")");
  CHECK(r.ok);
}

uint64_t g_seed = 1000;
/// Standard normal float64 values.
T rn(const k::Shape& s) { return k::random::normal(s, 0, 1, k::float64, g_seed++); }
/// Normal values pushed at least 0.2 away from zero (for relu, abs, sign kinks).
T away(const k::Shape& s) {
  T x = rn(s);
  return x + 0.2 * k::sign(x);
}
/// Values in [0.5, 2): safe for log, sqrt, division and pow bases.
T pos(const k::Shape& s) { return k::random::uniform(s, 0.5, 2.0, k::float64, g_seed++); }

struct BinCase {
  k::Shape a, b;
};
const std::vector<BinCase> kBroadcastCases = {
    {{3, 4}, {3, 4}}, {{3, 1}, {1, 4}}, {{2, 3, 4}, {4}}, {{}, {2, 3}}, {{2, 1, 4}, {3, 1}}, {{5}, {}}};
}  // namespace

TEST_CASE("gradient checker catches a wrong gradient") {
  auto wrong = k::custom_gradient([](const T& x) {
    return k::CustomGradientResult{k::square(x), [x](const T& dy) { return Ins{dy * x}; }};  // should be 2x
  });
  auto r = k::check_gradients([&](const Ins& in) { return wrong(in[0]); }, {rn({3})});
  CHECK_FALSE(r.ok);
  CHECK(r.report.find("input 0") != std::string::npos);
  CHECK(r.max_abs_error > 0.01);
  // And the variable form.
  k::Variable v(rn({2, 2}), {.name = "v"});
  auto rv = k::check_gradients([&]() { return k::tanh(k::matmul(v, v)); }, {v});
  CHECK(rv.ok);
}

TEST_CASE("gradients: binary element-wise ops with broadcasting") {
  for (const auto& c : kBroadcastCases) {
    const std::string shapes = c.a.to_string() + " and " + c.b.to_string();
    grad_ok("add " + shapes, [](const Ins& in) { return k::add(in[0], in[1]); }, {rn(c.a), rn(c.b)});
    grad_ok("subtract " + shapes, [](const Ins& in) { return k::subtract(in[0], in[1]); }, {rn(c.a), rn(c.b)});
    grad_ok("multiply " + shapes, [](const Ins& in) { return k::multiply(in[0], in[1]); }, {rn(c.a), rn(c.b)});
    grad_ok("divide " + shapes, [](const Ins& in) { return k::divide(in[0], in[1]); }, {rn(c.a), pos(c.b)});
    grad_ok("pow " + shapes, [](const Ins& in) { return k::pow(in[0], in[1]); }, {pos(c.a), rn(c.b)});
    grad_ok("maximum " + shapes, [](const Ins& in) { return k::maximum(in[0], in[1]); }, {rn(c.a), rn(c.b)});
    grad_ok("minimum " + shapes, [](const Ins& in) { return k::minimum(in[0], in[1]); }, {rn(c.a), rn(c.b)});
    grad_ok("operators " + shapes, [](const Ins& in) { return (in[0] + in[1]) * (in[0] - in[1]) / (in[1] * in[1] + 1.0); },
            {rn(c.a), rn(c.b)});
  }
}

TEST_CASE("gradients: operators with Python-style scalars, pow and clip") {
  grad_ok("x * 2", [](const Ins& in) { return in[0] * 2.0 + 3.0 * in[0]; }, {rn({3, 2})});
  grad_ok("2 - x", [](const Ins& in) { return 2.0 - in[0] - 1.0; }, {rn({3, 2})});
  grad_ok("1 / x", [](const Ins& in) { return 1.0 / in[0] + in[0] / 4.0; }, {pos({3, 2})});
  grad_ok("x + 1", [](const Ins& in) { return -(in[0] + 1.0); }, {rn({3, 2})});
  grad_ok("pow(x, 3)", [](const Ins& in) { return k::pow(in[0], 3.0); }, {rn({4})});
  grad_ok("pow(x, 0.5)", [](const Ins& in) { return k::pow(in[0], 0.5); }, {pos({4})});
  grad_ok("pow(x, -2)", [](const Ins& in) { return k::pow(in[0], -2.0); }, {pos({4})});
  // Values at least 0.05 away from the bounds.
  grad_ok("clip", [](const Ins& in) { return k::clip(in[0], -0.5, 0.5); },
          {T({-1.2, -0.7, -0.3, 0.0, 0.2, 0.45, 0.6, 2.0})});
}

TEST_CASE("gradients: floor_mod, add_n and the norm clips") {
  // a / b kept at least 0.07 away from an integer, where floor_mod jumps.
  grad_ok("floor_mod", [](const Ins& in) { return k::floor_mod(in[0], in[1]); },
          {T({0.3, 1.7, -2.6, 5.45}), T({1.1, -0.7, 0.9, 2.0})});
  grad_ok("x % 0.75 and 2.5 % x", [](const Ins& in) { return in[0] % 0.75 + 2.5 % in[1]; },
          {T({0.3, -1.1, 2.0}), T({0.7, 1.1, -0.9})});
  grad_ok("add_n", [](const Ins& in) { return k::add_n({in[0], in[1], in[0], in[2]}); },
          {rn({2, 3}), rn({2, 3}), rn({2, 3})});
  // Norm above the clip (scaled), below it (identity) and per row.
  grad_ok("clip_by_norm clipped", [](const Ins& in) { return k::clip_by_norm(in[0], 0.5); }, {rn({3, 4})});
  grad_ok("clip_by_norm unclipped", [](const Ins& in) { return k::clip_by_norm(in[0], 100.0); }, {rn({3, 4})});
  grad_ok("clip_by_norm axes", [](const Ins& in) { return k::clip_by_norm(in[0], 1.0, {1}); },
          {T({{3.0, 4.0}, {0.3, 0.4}, {-1.0, 2.0}})});
  grad_ok("global_norm", [](const Ins& in) { return k::global_norm({in[0], in[1]}); }, {rn({3}), rn({2, 2})});
  auto clipped_list = [](double clip) {
    return [clip](const Ins& in) {
      auto r = k::clip_by_global_norm({in[0], in[1]}, clip);
      return k::concat({k::reshape(r.list[0], {-1}), k::reshape(r.list[1], {-1}), k::reshape(r.global_norm, {1})});
    };
  };
  grad_ok("clip_by_global_norm clipped", clipped_list(0.5), {rn({3}), rn({2, 2})});
  grad_ok("clip_by_global_norm unclipped", clipped_list(100.0), {rn({3}), rn({2, 2})});
  grad_ok("clip_by_global_norm use_norm", [](const Ins& in) {
    return k::clip_by_global_norm({in[0]}, 0.5, k::sum(k::square(in[1]))).list[0];
  }, {rn({3}), pos({3})});
}

TEST_CASE("gradients: unary maths") {
  struct U {
    const char* name;
    T (*f)(const T&);
    int domain;  // 0: normal, 1: away from 0, 2: positive
  };
  const std::vector<U> ops = {
      {"neg", k::neg, 0},     {"abs", k::abs, 1},         {"sign", k::sign, 1},   {"exp", k::exp, 0},
      {"log", k::log, 2},     {"log1p", k::log1p, 2},     {"expm1", k::expm1, 0}, {"sqrt", k::sqrt, 2},
      {"rsqrt", k::rsqrt, 2}, {"square", k::square, 0},   {"sin", k::sin, 0},     {"cos", k::cos, 0},
      {"tanh", k::tanh, 0},   {"erf", k::erf, 0},         {"sigmoid", k::sigmoid, 0}, {"relu", k::relu, 1},
      {"softplus", k::softplus, 0}, {"floor", k::floor, 0}, {"round", k::round, 0},
  };
  for (const auto& u : ops) {
    T x = u.domain == 0 ? rn({3, 4}) : u.domain == 1 ? away({3, 4}) : pos({3, 4});
    auto f = u.f;
    grad_ok(u.name, [f](const Ins& in) { return f(in[0]); }, {x});
  }
  // Compositions exercise gradient accumulation.
  grad_ok("tanh(x) * exp(-x^2) + log(sigmoid(x))",
          [](const Ins& in) { return k::tanh(in[0]) * k::exp(-k::square(in[0])) + k::log(k::sigmoid(in[0])); },
          {rn({5})});
}

TEST_CASE("gradients: matmul, transposes and batches") {
  auto mm = [](bool ta, bool tb) {
    return [ta, tb](const Ins& in) { return k::matmul(in[0], in[1], ta, tb); };
  };
  grad_ok("(3,4)x(4,5)", mm(false, false), {rn({3, 4}), rn({4, 5})});
  grad_ok("(4,3)^T x(4,5)", mm(true, false), {rn({4, 3}), rn({4, 5})});
  grad_ok("(3,4)x(5,4)^T", mm(false, true), {rn({3, 4}), rn({5, 4})});
  grad_ok("(4,3)^T x(5,4)^T", mm(true, true), {rn({4, 3}), rn({5, 4})});
  grad_ok("(2,3,4)x(2,4,5)", mm(false, false), {rn({2, 3, 4}), rn({2, 4, 5})});
  grad_ok("(2,4,3)^T x(2,5,4)^T", mm(true, true), {rn({2, 4, 3}), rn({2, 5, 4})});
  grad_ok("(2,3,4)x(4,5)", mm(false, false), {rn({2, 3, 4}), rn({4, 5})});
  grad_ok("(2,3,4)x(5,4)^T", mm(false, true), {rn({2, 3, 4}), rn({5, 4})});
  grad_ok("(2,4,3)^T x(4,5)", mm(true, false), {rn({2, 4, 3}), rn({4, 5})});
  grad_ok("(3,4)x(2,4,5)", mm(false, false), {rn({3, 4}), rn({2, 4, 5})});
  grad_ok("(2,1,3,4)x(3,4,5)", mm(false, false), {rn({2, 1, 3, 4}), rn({3, 4, 5})});
  grad_ok("(1,3,4)x(2,5,4)^T", mm(false, true), {rn({1, 3, 4}), rn({2, 5, 4})});
}

TEST_CASE("gradients: shape ops") {
  grad_ok("reshape", [](const Ins& in) { return k::reshape(in[0], {4, -1}); }, {rn({2, 3, 4})});
  grad_ok("transpose", [](const Ins& in) { return k::transpose(in[0]); }, {rn({2, 3, 4})});
  grad_ok("transpose perm", [](const Ins& in) { return k::transpose(in[0], {1, 2, 0}); }, {rn({2, 3, 4})});
  grad_ok("expand_dims", [](const Ins& in) { return k::expand_dims(in[0], 1) * in[1]; }, {rn({2, 3}), rn({2, 4, 3})});
  grad_ok("squeeze", [](const Ins& in) { return k::squeeze(in[0]); }, {rn({1, 3, 1, 2})});
  grad_ok("flatten", [](const Ins& in) { return k::flatten(in[0]); }, {rn({2, 3, 2})});
  grad_ok("broadcast_to", [](const Ins& in) { return k::broadcast_to(in[0], {2, 3, 4}); }, {rn({3, 1})});
  grad_ok("tile", [](const Ins& in) { return k::tile(in[0], {2, 1, 3}); }, {rn({2, 3, 2})});
  grad_ok("identity", [](const Ins& in) { return k::identity(in[0]) * in[0]; }, {rn({3})});
  grad_ok("cast to float64", [](const Ins& in) { return k::cast(in[0], k::float64); }, {rn({3})});
  // float32 rounding needs a large step; cast is linear, so central differences stay exact.
  grad_ok("cast through float32", [](const Ins& in) { return k::cast(k::cast(in[0], k::float32) * 3.0, k::float64); },
          {rn({3})}, {.epsilon = 1e-2, .atol = 1e-4, .rtol = 1e-3});
}

TEST_CASE("gradients: slicing") {
  const auto none = std::nullopt;
  std::vector<std::pair<std::string, std::vector<k::Index>>> cases = {
      {"x[1]", {1}},
      {"x[-1, ::-1]", {-1, Slice(none, none, -1)}},
      {"x[:, 1:3]", {Slice(), Slice(1, 3)}},
      {"x[::2, ::-2, 1]", {Slice(none, none, 2), Slice(none, none, -2), 1}},
      {"x[newaxis, ..., 2]", {k::newaxis, k::ellipsis, 2}},
      {"x[..., ::-3]", {k::ellipsis, Slice(none, none, -3)}},
      {"x[1:, newaxis, -2:, :]", {Slice(1, none), k::newaxis, Slice(-2, none), Slice()}},
  };
  for (const auto& [name, idx] : cases) {
    auto ix = idx;
    grad_ok(name, [ix](const Ins& in) { return k::slice(in[0], ix); }, {rn({3, 4, 5})});
  }
  // Overlapping slices accumulate.
  grad_ok("x[0:3] * x[1:4]", [](const Ins& in) { return in[0][{Slice(0, 3)}] * in[0][{Slice(1, 4)}]; }, {rn({4})});
}

TEST_CASE("gradients: gather, concat, stack, split, where") {
  grad_ok("gather axis 0 with repeats", [](const Ins& in) { return k::gather(in[0], in[1]); },
          {rn({4, 3}), T({3, 0, 3, 1})});
  grad_ok("gather axis 1", [](const Ins& in) { return k::gather(in[0], in[1], 1); },
          {rn({2, 4, 3}), T({{int64_t{2}, int64_t{0}}, {int64_t{2}, int64_t{3}}})});
  grad_ok("gather axis -1", [](const Ins& in) { return k::gather(in[0], in[1], -1); }, {rn({2, 4}), T({1, 1, -1})});
  grad_ok("concat axis 0", [](const Ins& in) { return k::concat({in[0], in[1], in[0]}); }, {rn({2, 3}), rn({1, 3})});
  grad_ok("concat axis -1", [](const Ins& in) { return k::concat({in[0], in[1]}, -1); }, {rn({2, 2, 3}), rn({2, 2, 1})});
  grad_ok("stack axis 1", [](const Ins& in) { return k::stack({in[0], in[1], in[0]}, 1); }, {rn({2, 3}), rn({2, 3})});
  grad_ok("split equal", [](const Ins& in) {
    auto p = k::split(in[0], 3, 1);
    return p[0] * 1.0 + p[1] * p[1] + p[2] * 3.0;
  }, {rn({2, 6})});
  grad_ok("split sizes", [](const Ins& in) {
    auto p = k::split(in[0], std::vector<int64_t>{1, 3}, 0);
    return k::concat({p[1], p[0] * 2.0}, 0);
  }, {rn({4, 2})});
  T cond(std::vector<bool>{true, false, false, true}, k::Shape{4, 1});
  grad_ok("where broadcast", [cond](const Ins& in) { return k::where(cond, in[0], in[1]); }, {rn({4, 3}), rn({3})});
  grad_ok("where same shape", [](const Ins& in) { return k::where(in[0] > 0.0, in[0] * in[0], in[1]); },
          {away({3, 3}), rn({3, 3})});
}

TEST_CASE("gradients: reductions") {
  grad_ok("sum all", [](const Ins& in) { return k::sum(in[0]); }, {rn({2, 3, 4})});
  grad_ok("sum axis 1", [](const Ins& in) { return k::sum(in[0], 1); }, {rn({2, 3, 4})});
  grad_ok("sum axes {0,2} keepdims", [](const Ins& in) { return k::sum(in[0], {0, -1}, true); }, {rn({2, 3, 4})});
  grad_ok("mean all", [](const Ins& in) { return k::mean(in[0]); }, {rn({2, 3, 4})});
  grad_ok("mean axis -1", [](const Ins& in) { return k::mean(in[0], -1); }, {rn({2, 3, 4})});
  grad_ok("mean keepdims", [](const Ins& in) { return k::mean(in[0], {0, 1}, true); }, {rn({2, 3, 4})});
  grad_ok("max all", [](const Ins& in) { return k::max(in[0]); }, {rn({3, 4})});
  grad_ok("max axis 0", [](const Ins& in) { return k::max(in[0], 0); }, {rn({3, 4})});
  grad_ok("min axis 1 keepdims", [](const Ins& in) { return k::min(in[0], 1, true); }, {rn({3, 4})});
  grad_ok("prod all", [](const Ins& in) { return k::prod(in[0]); }, {away({2, 3})});
  grad_ok("prod axis 1", [](const Ins& in) { return k::prod(in[0], 1); }, {away({2, 3})});
  grad_ok("var", [](const Ins& in) { return k::var(in[0], 0); }, {rn({4, 3})});
  grad_ok("var all", [](const Ins& in) { return k::var(in[0]); }, {rn({4, 3})});
  grad_ok("std", [](const Ins& in) { return k::std(in[0], -1, true); }, {rn({3, 4})});
  grad_ok("logsumexp", [](const Ins& in) { return k::logsumexp(in[0], -1); }, {rn({3, 4})});
  grad_ok("logsumexp all", [](const Ins& in) { return k::logsumexp(in[0] * 10.0); }, {rn({3, 4})});
}

TEST_CASE("gradients: max splits ties equally, like TF") {
  T x({1.0, 3.0, 3.0});
  k::GradientTape tape;
  tape.watch(x);
  auto g = tape.gradient(k::max(x), x);
  REQUIRE(g);
  check_values(*g, {0, 0.5, 0.5});
}

TEST_CASE("gradients: softmax, log_softmax and sparse cross-entropy") {
  grad_ok("softmax axis -1", [](const Ins& in) { return k::softmax(in[0]); }, {rn({3, 4})});
  grad_ok("softmax axis 0", [](const Ins& in) { return k::softmax(in[0], 0); }, {rn({3, 4})});
  grad_ok("softmax axis 1 of 3-D", [](const Ins& in) { return k::softmax(in[0], 1); }, {rn({2, 3, 4})});
  grad_ok("log_softmax axis -1", [](const Ins& in) { return k::log_softmax(in[0], -1); }, {rn({3, 4})});
  grad_ok("log_softmax axis 0", [](const Ins& in) { return k::log_softmax(in[0], 0); }, {rn({3, 4})});
  grad_ok("sparse xent int32",
          [](const Ins& in) { return k::sparse_softmax_cross_entropy_with_logits(in[0], in[1]); },
          {T({2, 0, 1}), rn({3, 4})});
  grad_ok("sparse xent int64 3-D",
          [](const Ins& in) { return k::sparse_softmax_cross_entropy_with_logits(in[0], in[1]); },
          {T({{int64_t{1}, int64_t{0}}, {int64_t{4}, int64_t{2}}}), rn({2, 2, 5})});
}

TEST_CASE("values: softmax, log_softmax, sparse cross-entropy") {
  check_values(k::log_softmax(T({1.0, 2.0, 3.0})), {-2.40760596444438, -1.40760596444438, -0.40760596444438});
  check_values(k::softmax(T({{1.0, 1.0}, {3.0, 1.0}}), 0), {0.11920292202211755, 0.5, 0.8807970779778823, 0.5});
  check_values(k::softmax(T({1000.f, 0.f})), {1, 0});  // stable for large logits
  // CategoricalCrossentropy(from_logits=True)([[1, 0]], [[-1, 3]]) = 4.01815 (KERAS.md)
  T loss = k::sparse_softmax_cross_entropy_with_logits(T({0}), T({{-1.f, 3.f}}));
  CHECK(loss.shape() == k::Shape{1});
  CHECK(loss.item<float>() == doctest::Approx(4.01815).epsilon(1e-5));
  T l2 = k::sparse_softmax_cross_entropy_with_logits(T({int64_t{1}, int64_t{0}}), T({{0.0, 0.0}, {2.0, 0.0}}));
  check_values(l2, {std::log(2.0), std::log(1 + std::exp(-2.0))});
}

TEST_CASE("gradients: conv2d") {
  auto conv = [](k::Conv2DOptions o) {
    return [o](const Ins& in) { return k::conv2d(in[0], in[1], o); };
  };
  grad_ok("conv2d valid", conv({}), {rn({2, 5, 5, 2}), rn({3, 3, 2, 3})});
  grad_ok("conv2d same", conv({.padding = "same"}), {rn({1, 5, 4, 2}), rn({3, 2, 2, 2})});
  grad_ok("conv2d valid stride 2", conv({.strides = {2, 2}}), {rn({1, 7, 6, 1}), rn({3, 3, 1, 2})});
  grad_ok("conv2d same stride 2", conv({.strides = {2, 2}, .padding = "same"}), {rn({2, 6, 5, 2}), rn({3, 3, 2, 2})});
  grad_ok("conv2d dilation 2", conv({.dilation = {2, 2}}), {rn({1, 6, 6, 2}), rn({2, 2, 2, 2})});
  grad_ok("conv2d same dilation 2", conv({.padding = "same", .dilation = {2, 2}}), {rn({1, 5, 5, 1}), rn({3, 3, 1, 2})});
  grad_ok("conv2d 1x1 stride (1,2)", conv({.strides = {1, 2}}), {rn({1, 3, 5, 3}), rn({1, 1, 3, 2})});
}

TEST_CASE("depthwise_conv2d: gradients, and values equal to one conv2d per channel") {
  struct Case {
    const char* name;
    k::Conv2DOptions o;
    k::Shape x, w;
  };
  const Case cases[] = {
      {"valid", {}, {2, 5, 5, 3}, {3, 3, 3, 1}},
      {"same, multiplier 2", {.padding = "same"}, {1, 5, 4, 2}, {3, 2, 2, 2}},
      {"valid stride 2", {.strides = {2, 2}}, {1, 7, 6, 4}, {3, 3, 4, 1}},
      {"same stride 2, multiplier 3", {.strides = {2, 2}, .padding = "same"}, {2, 6, 5, 2}, {3, 3, 2, 3}},
      {"same dilation 2", {.padding = "same", .dilation = {2, 2}}, {1, 6, 6, 3}, {3, 3, 3, 1}},
      {"stride (1, 2), 1x5", {.strides = {1, 2}, .padding = "same"}, {1, 3, 9, 2}, {1, 5, 2, 2}},
  };
  for (const Case& c : cases) {
    const T x = rn(c.x), w = rn(c.w);
    const int64_t channels = c.x[3];
    auto per_channel = [&](const T& xs, const T& ws) {
      std::vector<T> ys;
      auto xc = k::split(xs, channels, 3);
      auto wc = k::split(ws, channels, 2);
      for (int64_t i = 0; i < channels; ++i) ys.push_back(k::conv2d(xc[i], wc[i], c.o));
      return k::concat(ys, 3);
    };
    INFO(c.name);
    const T want = per_channel(x, w);
    const T got = k::depthwise_conv2d(x, w, c.o);
    REQUIRE(got.shape() == want.shape());
    check_values(got, want.to_vector<double>(), 1e-12);
    // float32 runs the same kernel.
    const T got32 = k::depthwise_conv2d(k::cast(x, k::float32), k::cast(w, k::float32), c.o);
    check_values(got32, want.to_vector<double>(), 1e-4);
    grad_ok(std::string("depthwise_conv2d ") + c.name,
            [o = c.o](const Ins& in) { return k::depthwise_conv2d(in[0], in[1], o); }, {x, w});
  }
  CHECK_THROWS_WITH_AS(k::depthwise_conv2d(rn({1, 4, 4, 3}), rn({3, 3, 2, 1})),
                       doctest::Contains("depthwise_conv2d: the input has 3 channels"), k::ShapeError);
}

TEST_CASE("gradients: conv2d_bias and bias_add, with and without the fused relu") {
  for (bool relu : {false, true}) {
    auto cb = [relu](k::Conv2DOptions o) {
      return [o, relu](const Ins& in) { return k::conv2d_bias(in[0], in[1], in[2], o, relu); };
    };
    grad_ok("conv2d_bias valid", cb({}), {rn({2, 5, 5, 1}), rn({3, 3, 1, 16}), rn({16})});
    grad_ok("conv2d_bias same stride 2", cb({.strides = {2, 2}, .padding = "same"}),
            {rn({1, 6, 5, 2}), rn({3, 3, 2, 3}), rn({3})});
    grad_ok("conv2d_bias im2col", cb({}), {rn({1, 5, 5, 4}), rn({3, 3, 4, 2}), rn({2})});
    grad_ok("bias_add", [relu](const Ins& in) { return k::bias_add(in[0], in[1], relu); }, {rn({4, 3, 5}), rn({5})});
  }
}

TEST_CASE("gradients: batch_norm_training (fused), with and without scale and center") {
  grad_ok("batch_norm scale+center", [](const Ins& in) { return k::batch_norm_training(in[0], in[1], in[2], 1e-3).y; },
          {rn({6, 4}), rn({4}), rn({4})});
  grad_ok("batch_norm NHWC", [](const Ins& in) { return k::batch_norm_training(in[0], in[1], in[2], 1e-3).y; },
          {rn({2, 3, 2, 3}), rn({3}), rn({3})});
  grad_ok("batch_norm no scale", [](const Ins& in) { return k::batch_norm_training(in[0], T(), in[1], 1e-3).y; },
          {rn({5, 2}), rn({2})});
  grad_ok("batch_norm neither", [](const Ins& in) { return k::batch_norm_training(in[0], T(), T(), 1e-3).y; },
          {rn({5, 3})});
}

TEST_CASE("gradients: batch_norm_inference, with respect to x, the statistics, gamma and beta") {
  // Positive variances keep rsqrt's argument away from 0.
  grad_ok("batch_norm_inference", [](const Ins& in) {
            return k::batch_norm_inference(in[0], in[1], k::square(in[2]) + 0.5, in[3], in[4], 1e-3);
          },
          {rn({2, 3, 4}), rn({4}), rn({4}), rn({4}), rn({4})});
  grad_ok("batch_norm_inference neither", [](const Ins& in) {
            return k::batch_norm_inference(in[0], in[1], k::square(in[2]) + 0.5, T(), T(), 1e-3);
          },
          {rn({5, 3}), rn({3}), rn({3})});
}

TEST_CASE("gradients: pooling") {
  auto mp = [](k::Pool2DOptions o) { return [o](const Ins& in) { return k::max_pool2d(in[0], o); }; };
  auto ap = [](k::Pool2DOptions o) { return [o](const Ins& in) { return k::avg_pool2d(in[0], o); }; };
  grad_ok("max_pool2d valid", mp({}), {rn({2, 4, 6, 2})});
  grad_ok("max_pool2d same", mp({.padding = "same"}), {rn({1, 5, 5, 2})});
  grad_ok("max_pool2d 3x3 stride 2", mp({.pool_size = {3, 3}, .strides = {2, 2}}), {rn({1, 7, 7, 1})});
  grad_ok("max_pool2d same 3x3 stride 2", mp({.pool_size = {3, 3}, .strides = {2, 2}, .padding = "same"}), {rn({1, 6, 6, 2})});
  grad_ok("avg_pool2d valid", ap({}), {rn({2, 4, 6, 2})});
  grad_ok("avg_pool2d same", ap({.padding = "same"}), {rn({1, 5, 5, 2})});
  grad_ok("avg_pool2d 3x3 stride 1", ap({.pool_size = {3, 3}, .strides = {1, 1}}), {rn({1, 5, 4, 1})});
  grad_ok("avg_pool2d same 3x3 stride 2", ap({.pool_size = {3, 3}, .strides = {2, 2}, .padding = "same"}), {rn({1, 6, 5, 2})});
}

TEST_CASE("gradients: second order through pooling and softmax") {
  // Checks that the gradient rules are themselves differentiable.
  auto grad_of = [](std::function<T(const T&)> f) {
    return [f](const Ins& in) {
      T x = in[0];
      k::GradientTape tape;
      tape.watch(x);
      T y = k::sum(k::square(f(x)));
      return *tape.gradient(y, x);
    };
  };
  grad_ok("d/dx max_pool2d", grad_of([](const T& x) { return k::max_pool2d(x); }), {rn({1, 4, 4, 1})});
  grad_ok("d/dx avg_pool2d", grad_of([](const T& x) { return k::avg_pool2d(x, {.padding = "same"}); }), {rn({1, 3, 3, 1})});
  grad_ok("d/dx softmax", grad_of([](const T& x) { return k::softmax(x); }), {rn({2, 3})});
  grad_ok("d/dx log_softmax", grad_of([](const T& x) { return k::log_softmax(x, 0); }), {rn({2, 3})});
  grad_ok("d/dx matmul", grad_of([](const T& x) { return k::matmul(x, x, false, true); }), {rn({2, 3})});
  grad_ok("d/dx gather", grad_of([](const T& x) { return k::gather(x, T({1, 1, 0})) * x[0]; }), {rn({2, 3})});
  grad_ok("d/dx slice", grad_of([](const T& x) { return x[{Slice(1, std::nullopt)}] * x[{Slice(std::nullopt, 2)}]; }),
          {rn({3})});
  grad_ok("d/dx relu", grad_of([](const T& x) { return k::relu(x) * x; }), {away({5})});
  grad_ok("d/dx prod", grad_of([](const T& x) { return k::prod(x, 0); }), {away({3, 2})});
}

TEST_CASE("dropout: gradient is the mask") {
  k::random::set_seed(11);
  T x = k::ones({4000}, k::float64) * 2.0;
  k::GradientTape tape;
  tape.watch(x);
  T y = k::dropout(x, 0.25);
  auto g = tape.gradient(y, x);
  REQUIRE(g);
  auto yv = y.to_vector<double>();
  auto gv = g->to_vector<double>();
  int zeros = 0;
  for (std::size_t i = 0; i < yv.size(); ++i) {
    REQUIRE((gv[i] == 0.0 || gv[i] == doctest::Approx(1 / 0.75)));
    CHECK(yv[i] == doctest::Approx(2.0 * gv[i]));
    zeros += gv[i] == 0.0;
  }
  CHECK(zeros / 4000.0 == doctest::Approx(0.25).epsilon(0.2));
  CHECK(k::mean(y).item<double>() == doctest::Approx(2.0).epsilon(0.05));
  T same = k::dropout(x, 0.0);
  check_values(same, x.to_vector<double>());
}

TEST_CASE("conv2d values, hand-computed") {
  // x = [[1 2 3] [4 5 6] [7 8 9]], kernel [[1 2] [3 4]]
  T x(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}, k::Shape{1, 3, 3, 1});
  T w(std::vector<float>{1, 2, 3, 4}, k::Shape{2, 2, 1, 1});
  T valid = k::conv2d(x, w);
  CHECK(valid.shape() == k::Shape{1, 2, 2, 1});
  check_values(valid, {37, 47, 67, 77});
  // "same": TF pads the odd row/column at the end (bottom/right).
  T same = k::conv2d(x, w, {.padding = "same"});
  CHECK(same.shape() == k::Shape{1, 3, 3, 1});
  check_values(same, {37, 47, 21, 67, 77, 33, 23, 26, 9});
  // Stride 2 with a 1x1 kernel picks every other pixel.
  T x4 = k::reshape(k::range(0.0, 16.0), {1, 4, 4, 1});
  check_values(k::conv2d(x4, k::fill({1, 1, 1, 1}, 2.0), {.strides = {2, 2}}), {0, 4, 16, 20});
  // Dilation 2: a 2x2 kernel of ones sums the corners of a 3x3 window.
  T x5 = k::reshape(k::range(0.0, 25.0), {1, 5, 5, 1});
  T d = k::conv2d(x5, k::ones({2, 2, 1, 1}), {.dilation = {2, 2}});
  CHECK(d.shape() == k::Shape{1, 3, 3, 1});
  check_values(d, {24, 28, 32, 44, 48, 52, 64, 68, 72});
  // Two input and two output channels: out[c] = sum_i x[i] * w[i][c].
  T xc(std::vector<float>{1, 10, 2, 20}, k::Shape{1, 1, 2, 2});
  T wc(std::vector<float>{1, -1, 0.5, 2}, k::Shape{1, 1, 2, 2});
  check_values(k::conv2d(xc, wc), {6, 19, 12, 38});
  // float64 gives the same numbers.
  check_values(k::conv2d(k::cast(x, k::float64), k::cast(w, k::float64), {.padding = "same"}),
               {37, 47, 21, 67, 77, 33, 23, 26, 9});
}

TEST_CASE("conv2d output shapes follow TF: same -> ceil(in / stride)") {
  T x = k::zeros({2, 7, 7, 3});
  T w = k::zeros({3, 3, 3, 4});
  CHECK(k::conv2d(x, w).shape() == k::Shape{2, 5, 5, 4});
  CHECK(k::conv2d(x, w, {.padding = "same"}).shape() == k::Shape{2, 7, 7, 4});
  CHECK(k::conv2d(x, w, {.strides = {2, 2}, .padding = "same"}).shape() == k::Shape{2, 4, 4, 4});
  CHECK(k::conv2d(x, w, {.strides = {2, 2}}).shape() == k::Shape{2, 3, 3, 4});
  CHECK(k::conv2d(x, w, {.dilation = {2, 2}}).shape() == k::Shape{2, 3, 3, 4});
  CHECK(k::conv2d(k::zeros({1, 10, 10, 3}), w, {.strides = {3, 3}, .padding = "same"}).shape() ==
        k::Shape{1, 4, 4, 4});
  CHECK(k::conv2d(k::zeros({1, 28, 28, 3}), w, {.strides = {1, 2}, .padding = "same"}).shape() ==
        k::Shape{1, 28, 14, 4});
  // The guide's MNIST CNN: 28x28x1 -> Conv2D(32, 3) -> 26x26x32 -> MaxPooling2D -> 13x13x32.
  T y = k::conv2d(k::zeros({1, 28, 28, 1}), k::zeros({3, 3, 1, 32}));
  CHECK(y.shape() == k::Shape{1, 26, 26, 32});
  CHECK(k::max_pool2d(y).shape() == k::Shape{1, 13, 13, 32});
}

TEST_CASE("pooling values, hand-computed") {
  T x4 = k::reshape(k::range(0.0, 16.0), {1, 4, 4, 1});
  check_values(k::max_pool2d(x4), {5, 7, 13, 15});
  check_values(k::avg_pool2d(x4), {2.5, 4.5, 10.5, 12.5});
  check_values(k::max_pool2d(x4, {.pool_size = {3, 3}, .strides = {1, 1}}), {10, 11, 14, 15});
  // "same" on 3x3 with 2x2 windows pads at the end; averages count only real pixels.
  T x3 = k::reshape(k::range(0.0, 9.0), {1, 3, 3, 1});
  T ms = k::max_pool2d(x3, {.padding = "same"});
  CHECK(ms.shape() == k::Shape{1, 2, 2, 1});
  check_values(ms, {4, 5, 7, 8});
  check_values(k::avg_pool2d(x3, {.padding = "same"}), {2, 3.5, 6.5, 8});
  // Negative inputs: padding never wins a max.
  check_values(k::max_pool2d(-1.0 * x3, {.padding = "same"}), {0, -2, -6, -8});
  // Channels are pooled separately.
  T xc(std::vector<float>{1, -1, 2, -2, 3, -3, 4, -4}, k::Shape{1, 2, 2, 2});
  check_values(k::max_pool2d(xc), {4, -1});
  check_values(k::avg_pool2d(xc), {2.5, -2.5});
}

}  // namespace test_ops_grad
