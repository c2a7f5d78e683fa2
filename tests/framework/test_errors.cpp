// Every op rejects bad shapes and dtypes with the right kiln::Error subclass and
// a message that names the op and shows the full shapes.
#include <doctest/doctest.h>

#include "test_util.h"

#include <functional>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/ops/ops.h"
#include "kiln/core/tensor.h"
#include "kiln/autodiff/variable.h"

namespace k = kiln;
using T = k::Tensor;

using kiln_test::message_of;
using kiln_test::contains;

namespace {
}  // namespace

TEST_CASE("errors: the hierarchy") {
  CHECK_THROWS_AS(throw k::ShapeError("x"), k::ValueError);
  CHECK_THROWS_AS(throw k::IndexError("x"), k::ValueError);
  CHECK_THROWS_AS(throw k::NotFoundError("x"), k::ValueError);
  CHECK_THROWS_AS(throw k::TypeError("x"), k::Error);
  CHECK_THROWS_AS(throw k::LookupError("x"), k::Error);
  CHECK_THROWS_AS(throw k::RuntimeError("x"), std::runtime_error);
}

TEST_CASE("errors: binary ops with shapes that do not broadcast") {
  const std::vector<std::pair<std::string, std::function<T(const T&, const T&)>>> ops = {
      {"add", [](const T& a, const T& b) { return k::add(a, b); }},
      {"subtract", [](const T& a, const T& b) { return k::subtract(a, b); }},
      {"multiply", [](const T& a, const T& b) { return k::multiply(a, b); }},
      {"divide", [](const T& a, const T& b) { return k::divide(a, b); }},
      {"pow", [](const T& a, const T& b) { return k::pow(a, b); }},
      {"maximum", [](const T& a, const T& b) { return k::maximum(a, b); }},
      {"minimum", [](const T& a, const T& b) { return k::minimum(a, b); }},
      {"equal", [](const T& a, const T& b) { return k::equal(a, b); }},
      {"not_equal", [](const T& a, const T& b) { return k::not_equal(a, b); }},
      {"less", [](const T& a, const T& b) { return k::less(a, b); }},
      {"less_equal", [](const T& a, const T& b) { return k::less_equal(a, b); }},
      {"greater", [](const T& a, const T& b) { return k::greater(a, b); }},
      {"greater_equal", [](const T& a, const T& b) { return k::greater_equal(a, b); }},
      {"logical_and", [](const T& a, const T& b) { return k::logical_and(a, b); }},
      {"logical_or", [](const T& a, const T& b) { return k::logical_or(a, b); }},
  };
  // Named copies, not a structured binding: clang 14 cannot capture bindings in lambdas (INFO makes one).
  for (const auto& op : ops) {
    const std::string& name = op.first;
    const auto& f = op.second;
    INFO(name);
    CHECK_THROWS_AS(f(k::ones({2, 3}), k::ones({4})), k::ShapeError);
    std::string m = message_of<k::ShapeError>([&] { f(k::ones({2, 3}), k::ones({4})); });
    CHECK_HAS(m, name + ":");
    CHECK_HAS(m, "(2, 3)");
    CHECK_HAS(m, "(4,)");
  }
  std::string m = message_of<k::ShapeError>([] { k::ones({5, 2, 3}) + k::ones({5, 1, 4}); });
  CHECK(m == "add: incompatible shapes for broadcasting: (5, 2, 3) and (5, 1, 4)");
}

TEST_CASE("errors: mixing dtypes") {
  std::string m = message_of<k::TypeError>([] { k::add(k::ones({2}), k::ones({2}, k::float64)); });
  CHECK_HAS(m, "add");
  CHECK_HAS(m, "float32");
  CHECK_HAS(m, "float64");
  CHECK_HAS(m, "(2,)");
  CHECK_THROWS_AS(k::multiply(k::ones({2}), k::ones({2}, k::int32)), k::TypeError);
  CHECK_THROWS_AS(k::matmul(k::ones({2, 2}), k::ones({2, 2}, k::float64)), k::TypeError);
  CHECK_THROWS_AS(k::concat({k::ones({2}), k::ones({2}, k::int64)}), k::TypeError);
  CHECK_THROWS_AS(k::where(k::ones({2}) > 0.0, k::ones({2}), k::ones({2}, k::float64)), k::TypeError);
  CHECK_THROWS_AS(k::conv2d(k::ones({1, 3, 3, 1}), k::ones({2, 2, 1, 1}, k::float64)), k::TypeError);
  CHECK_HAS(message_of<k::TypeError>([] { k::ones({2}) < k::ones({2}, k::int32); }), "less");
}

TEST_CASE("errors: float-only ops reject integer tensors") {
  const std::vector<std::pair<std::string, T (*)(const T&)>> ops = {
      {"exp", k::exp},     {"log", k::log},   {"sqrt", k::sqrt},         {"tanh", k::tanh},
      {"sigmoid", k::sigmoid}, {"softplus", k::softplus}, {"sin", k::sin}, {"erf", k::erf},
  };
  for (const auto& op : ops) {
    const std::string& name = op.first;
    const auto f = op.second;
    std::string m = message_of<k::TypeError>([&] { f(T({1, 2, 3})); });
    CHECK_HAS(m, name + ":");
    CHECK_HAS(m, "int32");
    CHECK_HAS(m, "(3,)");
  }
  CHECK_THROWS_AS(k::conv2d(k::ones({1, 3, 3, 1}, k::int32), k::ones({2, 2, 1, 1}, k::int32)), k::TypeError);
  CHECK_HAS(message_of<k::TypeError>([] { k::max_pool2d(k::ones({1, 2, 2, 1}, k::uint8)); }), "max_pool2d");
  CHECK_THROWS_AS(k::sum(k::ones({2}, k::bool_)), k::TypeError);
  CHECK_THROWS_AS(k::random::normal({2}, 0, 1, k::int32), k::TypeError);
  CHECK_THROWS_AS(k::random::truncated_normal({2}, 0, 1, k::int64), k::TypeError);
  CHECK_THROWS_AS(k::random::uniform({2}, 0, 1, k::bool_), k::TypeError);
}

TEST_CASE("errors: matmul") {
  std::string m = message_of<k::ShapeError>([] { k::matmul(k::ones({2, 3}), k::ones({4, 5})); });
  CHECK_HAS(m, "matmul");
  CHECK_HAS(m, "(2, 3)");
  CHECK_HAS(m, "(4, 5)");
  CHECK_HAS(m, "3 and 4");
  CHECK_NOTHROW(k::matmul(k::ones({2, 3}), k::ones({2, 3}), false, true));
  std::string tr = message_of<k::ShapeError>([] { k::matmul(k::ones({2, 3}), k::ones({2, 3}), true, true); });
  CHECK_HAS(tr, "with transposes");
  std::string r1 = message_of<k::ShapeError>([] { k::matmul(k::ones({3}), k::ones({3, 2})); });
  CHECK_HAS(r1, "rank >= 2");
  CHECK_HAS(r1, "(3,)");
  std::string b = message_of<k::ShapeError>([] { k::matmul(k::ones({2, 3, 4}), k::ones({3, 4, 5})); });
  CHECK_HAS(b, "matmul");
  CHECK_HAS(b, "(2, 3, 4)");
  CHECK_HAS(b, "(3, 4, 5)");
}

TEST_CASE("errors: the fused ops name the op, the parameter and both shapes") {
  std::string cb = message_of<k::ShapeError>(
      [] { k::conv2d_bias(k::ones({1, 5, 5, 1}), k::ones({3, 3, 1, 4}), k::ones({3}), {}, true); });
  CHECK_HAS(cb, "conv2d_bias");
  CHECK_HAS(cb, "bias of shape (3,)");
  CHECK_HAS(cb, "(1, 3, 3, 4)");
  std::string ck = message_of<k::ShapeError>([] { k::conv2d_bias(k::ones({1, 5, 5, 2}), k::ones({3, 3, 1, 4}), k::ones({4})); });
  CHECK_HAS(ck, "conv2d_bias");
  CHECK_HAS(ck, "(1, 5, 5, 2)");
  CHECK_HAS(ck, "(3, 3, 1, 4)");
  std::string ba = message_of<k::ShapeError>([] { k::bias_add(k::ones({2, 5}), k::ones({2, 5})); });
  CHECK_HAS(ba, "bias_add: bias of shape (2, 5)");
  CHECK_HAS(ba, "input with shape (2, 5)");
  std::string bn = message_of<k::ShapeError>([] { k::batch_norm_training(k::ones({8, 4}), k::ones({3}), k::Tensor(), 1e-3); });
  CHECK_HAS(bn, "batch_norm_training: gamma of shape (3,)");
  CHECK_HAS(bn, "(8, 4)");
  std::string bt = message_of<k::TypeError>(
      [] { k::batch_norm_training(k::ones({8, 4}), k::Tensor(), k::ones({4}, k::float64), 1e-3); });
  CHECK_HAS(bt, "batch_norm_training");
  CHECK_HAS(bt, "float64");
  std::string br = message_of<k::ShapeError>([] { k::batch_norm_training(k::ones({4}), k::Tensor(), k::Tensor(), 1e-3); });
  CHECK_HAS(br, "rank >= 2");
  std::string bi = message_of<k::TypeError>([] { k::batch_norm_training(k::ones({8, 4}, k::int32), k::Tensor(), k::Tensor(), 1e-3); });
  CHECK_HAS(bi, "int32");
  // Inference mode checks its statistics alike, with or without a tape recording.
  std::string ni = message_of<k::ShapeError>(
      [] { k::batch_norm_inference(k::ones({8, 4}), k::zeros({3}), k::ones({4}), k::Tensor(), k::Tensor(), 1e-3); });
  CHECK_HAS(ni, "batch_norm_inference: mean of shape (3,)");
  CHECK_HAS(ni, "input with shape (8, 4)");
  std::string nt = message_of<k::ShapeError>([] {
    k::GradientTape tape;
    k::batch_norm_inference(k::ones({8, 4}), k::zeros({4}), k::ones({4}), k::ones({2, 4}), k::Tensor(), 1e-3);
  });
  CHECK_HAS(nt, "batch_norm_inference: gamma of shape (2, 4)");
  std::string nd = message_of<k::TypeError>(
      [] { k::batch_norm_inference(k::ones({8, 4}, k::int64), k::zeros({4}), k::ones({4}), k::Tensor(), k::Tensor(), 1e-3); });
  CHECK_HAS(nd, "batch_norm_inference");
  CHECK_HAS(nd, "int64");
  std::string fd = message_of<k::TypeError>([] { k::floor_divide(k::ones({2}, k::bool_), k::ones({2}, k::bool_)); });
  CHECK_HAS(fd, "floor_divide");
}

TEST_CASE("errors: reshape") {
  CHECK_THROWS_WITH_AS(k::reshape(k::ones({5, 6}), {2, 7}),
                       "Input to reshape is a tensor with 30 values, but the requested shape has 14", k::ShapeError);
  CHECK_HAS(message_of<k::ShapeError>([] { k::reshape(k::ones({5, 6}), {-1, 7}); }), "30 values");
  CHECK_HAS(message_of<k::ValueError>([] { k::reshape(k::ones({4}), {-1, -1}); }), "only one dimension can be -1");
  CHECK_THROWS_AS(k::reshape(k::ones({4}), {-2, -2}), k::ValueError);
  CHECK_THROWS_AS(k::reshape(T(), {1}), k::ValueError);
}

TEST_CASE("errors: shape ops") {
  std::string tp = message_of<k::ValueError>([] { k::transpose(k::ones({2, 3}), {0}); });
  CHECK_HAS(tp, "transpose");
  CHECK_HAS(tp, "(2, 3)");
  CHECK_THROWS_AS(k::transpose(k::ones({2, 3}), {0, 0}), k::ValueError);
  CHECK_THROWS_AS(k::transpose(k::ones({2, 3}), {0, 2}), k::IndexError);
  std::string ed = message_of<k::IndexError>([] { k::expand_dims(k::ones({2, 3}), 4); });
  CHECK_HAS(ed, "expand_dims");
  CHECK_HAS(ed, "axis 4");
  std::string sq = message_of<k::ValueError>([] { k::squeeze(k::ones({1, 3}), {1}); });
  CHECK_HAS(sq, "squeeze");
  CHECK_HAS(sq, "(1, 3)");
  CHECK_THROWS_AS(k::squeeze(k::ones({1, 3}), {2}), k::IndexError);
  CHECK_THROWS_AS(k::flatten(T(1.f)), k::ValueError);
  std::string bt = message_of<k::ShapeError>([] { k::broadcast_to(k::ones({3}), {2, 4}); });
  CHECK_HAS(bt, "broadcast_to");
  CHECK_HAS(bt, "(3,)");
  CHECK_HAS(bt, "(2, 4)");
  CHECK_THROWS_AS(k::broadcast_to(k::ones({2, 3}), {3}), k::ShapeError);
  CHECK(k::tile(k::ones({2, 3}), {2}).shape() == k::Shape({2, 6}));  // NumPy pads the repetitions with 1s
  std::string tl = message_of<k::ValueError>([] { k::tile(k::ones({2, 3}), {2, -1}); });
  CHECK_HAS(tl, "tile");
  CHECK_HAS(tl, "(2, 3)");
}

TEST_CASE("errors: slicing and gather") {
  T x = k::ones({3, 4});
  std::string ob = message_of<k::IndexError>([&] { x[{5}]; });
  CHECK_HAS(ob, "index 5");
  CHECK_HAS(ob, "(3, 4)");
  CHECK_THROWS_AS(x[-4], k::IndexError);
  CHECK_THROWS_AS((x[{0, 0, 0}]), k::IndexError);
  CHECK_THROWS_AS((x[{k::ellipsis, k::ellipsis}]), k::IndexError);
  CHECK_THROWS_AS((x[{k::Slice(0, 2, 0)}]), k::ValueError);
  CHECK_THROWS_AS(T(2.f)[0], k::IndexError);

  std::string gf = message_of<k::TypeError>([&] { k::gather(x, k::Tensor({0.f, 1.f})); });
  CHECK_HAS(gf, "gather");
  CHECK_HAS(gf, "float32");
  std::string gr = message_of<k::IndexError>([&] { k::gather(x, k::Tensor({0, 3})); });
  CHECK_HAS(gr, "gather");
  CHECK_HAS(gr, "index 3");
  CHECK_HAS(gr, "(3, 4)");
  CHECK_THROWS_AS(k::gather(x, k::Tensor({0}), 2), k::IndexError);
  std::string oh = message_of<k::TypeError>([] { k::one_hot(k::Tensor({0.f}), 3); });
  CHECK_HAS(oh, "one_hot");
}

TEST_CASE("errors: concat, stack, split, where") {
  std::string c = message_of<k::ShapeError>([] { k::concat({k::ones({2, 3}), k::ones({2, 4})}, 0); });
  CHECK_HAS(c, "concat");
  CHECK_HAS(c, "(2, 3)");
  CHECK_HAS(c, "(2, 4)");
  CHECK_THROWS_AS(k::concat({k::ones({2, 3}), k::ones({2})}, 1), k::ShapeError);
  CHECK_THROWS_AS(k::concat({}, 0), k::ValueError);
  CHECK_THROWS_AS(k::concat({k::ones({2})}, 1), k::IndexError);
  std::string s = message_of<k::ShapeError>([] { k::stack({k::ones({2}), k::ones({3})}); });
  CHECK_HAS(s, "stack");
  CHECK_HAS(s, "(2,)");
  CHECK_HAS(s, "(3,)");
  CHECK_THROWS_AS(k::stack({}), k::ValueError);
  std::string sp = message_of<k::ValueError>([] { k::split(k::ones({2, 5}), 2, 1); });
  CHECK_HAS(sp, "split");
  CHECK_HAS(sp, "(2, 5)");
  std::string ss = message_of<k::ShapeError>([] { k::split(k::ones({2, 5}), std::vector<int64_t>{2, 2}, 1); });
  CHECK_HAS(ss, "split");
  CHECK_HAS(ss, "(2, 5)");
  std::string w = message_of<k::ShapeError>([] { k::where(k::ones({3}) > 0.0, k::ones({2}), k::ones({2})); });
  CHECK_HAS(w, "where");
  CHECK_HAS(w, "(3,)");
  CHECK_HAS(w, "(2,)");
}

TEST_CASE("errors: reductions") {
  std::string s = message_of<k::IndexError>([] { k::sum(k::ones({2, 3}), 2); });
  CHECK_HAS(s, "sum");
  CHECK_HAS(s, "axis 2");
  CHECK_HAS(s, "rank 2");
  CHECK_THROWS_AS(k::mean(k::ones({2, 3}), -3), k::IndexError);
  CHECK_HAS(message_of<k::ValueError>([] { k::max(k::zeros({0, 3})); }), "(0, 3)");
  CHECK_THROWS_AS(k::argmax(T(1.f)), k::ValueError);
  CHECK_THROWS_AS(k::argmin(k::ones({2, 3}), 5), k::IndexError);
  CHECK_HAS(message_of<k::ValueError>([] { k::argmax(k::zeros({2, 0})); }), "argmax");
}

TEST_CASE("errors: nn ops") {
  std::string r = message_of<k::ShapeError>([] { k::conv2d(k::ones({3, 3, 1}), k::ones({2, 2, 1, 1})); });
  CHECK_HAS(r, "conv2d");
  CHECK_HAS(r, "(3, 3, 1)");
  CHECK_HAS(r, "(2, 2, 1, 1)");
  std::string ch = message_of<k::ShapeError>([] { k::conv2d(k::ones({1, 5, 5, 3}), k::ones({3, 3, 2, 4})); });
  CHECK_HAS(ch, "conv2d");
  CHECK_HAS(ch, "(1, 5, 5, 3)");
  CHECK_HAS(ch, "(3, 3, 2, 4)");
  std::string big = message_of<k::ShapeError>([] { k::conv2d(k::ones({1, 2, 2, 1}), k::ones({3, 3, 1, 1})); });
  CHECK_HAS(big, "conv2d");
  CHECK_HAS(big, "(1, 2, 2, 1)");
  CHECK_HAS(message_of<k::ValueError>([] { k::conv2d(k::ones({1, 3, 3, 1}), k::ones({1, 1, 1, 1}), {.padding = "full"}); }),
            "\"full\"");
  CHECK_THROWS_AS(k::conv2d(k::ones({1, 3, 3, 1}), k::ones({1, 1, 1, 1}), {.strides = {0, 1}}), k::ValueError);
  CHECK_HAS(message_of<k::ShapeError>([] { k::max_pool2d(k::ones({4, 4, 1})); }), "(4, 4, 1)");
  CHECK_HAS(message_of<k::ShapeError>([] { k::avg_pool2d(k::ones({1, 1, 1, 1})); }), "avg_pool2d");
  CHECK_THROWS_AS(k::avg_pool2d(k::ones({1, 4, 4, 1}), {.padding = "causal"}), k::ValueError);
  CHECK_THROWS_AS(k::max_pool2d(k::ones({1, 4, 4, 1}), {.pool_size = {0, 2}}), k::ValueError);
  CHECK_HAS(message_of<k::IndexError>([] { k::softmax(k::ones({2, 3}), 2); }), "softmax");
  CHECK_THROWS_AS(k::log_softmax(k::ones({2, 3}), -3), k::IndexError);
  std::string li = message_of<k::TypeError>([] { k::log_softmax(T({1, 2})); });
  CHECK_HAS(li, "log_softmax:");
  CHECK_HAS(li, "int32");
  CHECK_HAS(message_of<k::TypeError>([] { k::softmax(k::ones({2}, k::int64)); }), "softmax:");
  CHECK_HAS(message_of<k::ValueError>([] { k::dropout(k::ones({2}), 1.0); }), "dropout");
  CHECK_THROWS_AS(k::dropout(k::ones({2}), -0.1), k::ValueError);

  const char* op = "sparse_softmax_cross_entropy_with_logits";
  CHECK_HAS(message_of<k::TypeError>([] { k::sparse_softmax_cross_entropy_with_logits(k::ones({2}), k::ones({2, 3})); }),
            op);
  CHECK_HAS(message_of<k::TypeError>([] { k::sparse_softmax_cross_entropy_with_logits(T({0, 1}), k::ones({2, 3}, k::int32)); }),
            op);
  std::string xs = message_of<k::ShapeError>([] { k::sparse_softmax_cross_entropy_with_logits(T({0, 1, 2}), k::ones({2, 3})); });
  CHECK_HAS(xs, "(3,)");
  CHECK_HAS(xs, "(2, 3)");
  std::string lab = message_of<k::ValueError>([] { k::sparse_softmax_cross_entropy_with_logits(T({0, 3}), k::ones({2, 3})); });
  CHECK_HAS(lab, "label value of 3");
  CHECK_HAS(lab, "[0, 3)");
}

TEST_CASE("errors: Variable assign names the variable and both shapes") {
  k::Variable v(k::zeros({2, 3}), {.name = "kernel"});
  v.set_path("dense/kernel");
  std::string m = message_of<k::ShapeError>([&] { v.assign(k::zeros({3, 2})); });
  CHECK_HAS(m, "assign");
  CHECK_HAS(m, "'dense/kernel'");
  CHECK_HAS(m, "(3, 2)");
  CHECK_HAS(m, "(2, 3)");
  CHECK_HAS(message_of<k::ShapeError>([&] { v.assign_add(k::zeros({3})); }), "assign_add");
  CHECK_HAS(message_of<k::ShapeError>([&] { v.assign_sub(k::zeros({2, 3, 1})); }), "(2, 3, 1)");
  CHECK_THROWS_AS((void)k::Variable(T{}), k::ValueError);
  CHECK_THROWS_AS((void)k::Variable(T::symbolic({k::None, 3})), k::ValueError);
  CHECK_THROWS_AS(k::Variable().value(), k::ValueError);
}

TEST_CASE("errors: tensors") {
  CHECK_HAS(message_of<k::ValueError>([] { T(std::vector<float>{1, 2, 3}, k::Shape{2, 2}); }), "(2, 2)");
  CHECK_HAS(message_of<k::ValueError>([] { T({{1.f, 2.f}, {3.f}}); }), "ragged");
  std::string it = message_of<k::ValueError>([] { k::ones({2, 3}).item<float>(); });
  CHECK_HAS(it, "item");
  CHECK_HAS(it, "(2, 3)");
  std::string dt = message_of<k::TypeError>([] { k::ones({2}).data<double>(); });
  CHECK_HAS(dt, "float64");
  CHECK_HAS(dt, "float32");
  CHECK_THROWS_AS(T().shape(), k::ValueError);
  CHECK_THROWS_AS(k::exp(T()), k::ValueError);
  std::string sym = message_of<k::ValueError>([] { k::exp(T::symbolic({k::None, 3})); });
  CHECK_HAS(sym, "exp");
  CHECK_HAS(sym, "(None, 3)");
  CHECK_THROWS_AS(T::symbolic({2}).raw_data(), k::ValueError);
  CHECK_THROWS_AS(k::dtype_from_name("complex64"), k::ValueError);
  CHECK_THROWS_AS(k::range(0.0, 1.0, 0.0), k::ValueError);
  CHECK_THROWS_AS(k::linspace(0, 1, -1), k::ValueError);
  CHECK_THROWS_AS(k::random::uniform({2}, 1.0, 1.0, k::int32), k::ValueError);
  CHECK_THROWS_AS(k::clip(k::ones({2}), 1.0, 0.0), k::ValueError);
  CHECK_THROWS_AS(k::zeros({k::None, 2}), k::ValueError);
}

TEST_CASE("errors: GradientTape") {
  T x({1.0, 2.0});
  k::GradientTape tape({.persistent = true});
  tape.watch(x);
  T y = x * x;
  std::string m = message_of<k::ShapeError>([&] { tape.gradient(y, std::vector<k::Source>{x}, T({1.0, 2.0, 3.0})); });
  CHECK_HAS(m, "output_gradient");
  CHECK_HAS(m, "(3,)");
  CHECK_HAS(m, "(2,)");
  CHECK_NOTHROW(tape.gradient(y, std::vector<k::Source>{x}, T({1.0, 2.0})));
}

TEST_CASE("errors: dtype rules are checked by the op, naming it and the full shapes") {
  const T b = k::cast(k::ones({2, 3}), k::DType::bool_);
  const T i = k::cast(k::ones({4}), k::DType::int32);
  std::string m = message_of<k::TypeError>([&] { k::add(b, b); });
  CHECK_HAS(m, "add: arithmetic is not defined for bool tensors");
  CHECK_HAS(m, "a tensor of shape (2, 3) and dtype bool");
  m = message_of<k::TypeError>([&] { k::neg(b); });
  CHECK_HAS(m, "neg: expected a numeric tensor");
  CHECK_HAS(m, "(2, 3)");
  m = message_of<k::TypeError>([&] { k::exp(i); });
  CHECK_HAS(m, "exp: expected a float32 or float64 tensor");
  CHECK_HAS(m, "shape (4,) and dtype int32");
  m = message_of<k::TypeError>([&] { k::matmul(b, b); });
  CHECK_HAS(m, "matmul: not defined for bool tensors");
  // The rules allow what they should: comparisons and logical ops on bool, integer neg.
  CHECK(k::equal(b, b).dtype() == k::DType::bool_);
  CHECK(k::logical_and(b, b).to_vector<bool>() == std::vector<bool>(6, true));
  CHECK(k::neg(i).to_vector<int32_t>() == std::vector<int32_t>(4, -1));
}
