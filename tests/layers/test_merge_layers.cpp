// Merge layers: values, shape inference and Keras-style errors.
#include <doctest/doctest.h>

#include "test_util.h"

#include <cmath>
#include <string>

#include "kiln/core/error.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "kiln/training/model.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_merge_layers {

namespace k = kiln;
namespace L = kiln::layers;

using kiln_test::message_of;

namespace {
void check_values(const k::Tensor& t, const std::vector<double>& expected, double eps = 1e-6) {
  auto got = t.to_vector<double>();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(expected[i]).epsilon(eps));
}
}  // namespace

TEST_CASE("element-wise merge values") {
  k::Tensor a({{1.f, 5.f}}), b({{3.f, 4.f}}), c({{2.f, 0.f}});
  check_values(L::Add()({a, b, c}), {6, 9});
  check_values(L::Subtract()({a, b}), {-2, 1});
  check_values(L::Multiply()({a, b, c}), {6, 0});
  check_values(L::Average()({a, b}), {2, 4.5});
  check_values(L::Maximum()({a, b, c}), {3, 5});
  check_values(L::Minimum()({a, b, c}), {1, 0});
  // A size-1 axis broadcasts.
  CHECK(L::Add()({k::ones({2, 3, 4}), k::ones({2, 1, 4})}).shape() == k::Shape{2, 3, 4});
}

TEST_CASE("merge shape errors name the layer and both shapes") {
  k::clear_session();
  k::Tensor x16 = k::Input({16}), x8 = k::Input({8});
  L::Add add;
  std::string msg = message_of([&] { add({x16, x8}); });
  CHECK(msg.find("Layer 'add'") != std::string::npos);
  CHECK(msg.find("Inputs have incompatible shapes. Received shapes (None, 16) and (None, 8)") != std::string::npos);
  CHECK_THROWS_AS(add({x16, x8}), k::ShapeError);
  // Concrete calls fail the same way.
  CHECK_THROWS_AS(L::Multiply()({k::ones({2, 3}), k::ones({2, 4})}), k::ShapeError);
  CHECK_THROWS_AS(L::Add()({k::ones({2, 3}), k::ones({3, 3})}), k::ShapeError);  // batch sizes
  // Subtract takes exactly two inputs.
  std::string sub = message_of([&] { L::Subtract()({x16, x16, x16}); });
  CHECK(sub.find("exactly 2 inputs") != std::string::npos);
  // A single tensor is not a list.
  CHECK_THROWS_AS(L::Add()(k::ones({2, 3})), k::ValueError);
  // Symbolic inference.
  CHECK(L::Maximum()({x16, k::Input({16})}).shape() == k::Shape{k::None, 16});
}

TEST_CASE("Concatenate") {
  k::Tensor a({{1.f, 2.f}, {3.f, 4.f}}), b = k::reshape(k::Tensor({5.f, 6.f}), {2, 1});
  k::Tensor y = L::Concatenate()({a, b});
  CHECK(y.shape() == k::Shape{2, 3});
  check_values(y, {1, 2, 5, 3, 4, 6});
  k::Tensor y0 = L::Concatenate({.axis = 0})({a, k::Tensor({{7.f, 8.f}})});
  CHECK(y0.shape() == k::Shape{3, 2});
  k::Tensor s = L::Concatenate({.axis = 1})({k::Input({4, 4}), k::Input({5, 4})});
  CHECK(s.shape() == k::Shape{k::None, 9, 4});
  k::clear_session();
  L::Concatenate cat;
  std::string msg = message_of([&] { cat({k::Input({4, 4}), k::Input({5, 5})}); });
  CHECK(msg.find("'concatenate'") != std::string::npos);
  CHECK(msg.find("matching shapes except for the concatenation axis") != std::string::npos);
  CHECK(msg.find("(None, 4, 4), (None, 5, 5)") != std::string::npos);
}

TEST_CASE("merge layers join mixed dtypes as keras.ops does") {
  // Keras 3.15: Concatenate()([float32 (2, 1), int64 (2, 2)]) and Add() on float32
  // with int64 give float32, as a StringLookup's int64 multi-hot beside float features.
  k::Tensor f = k::reshape(k::Tensor({0.5f, 1.5f}), {2, 1});
  k::Tensor i({{int64_t{1}, int64_t{0}}, {int64_t{0}, int64_t{1}}});
  k::Tensor c = L::Concatenate()({f, i});
  CHECK(c.dtype() == k::DType::float32);
  check_values(c, {0.5, 1, 0, 1.5, 0, 1});
  k::Tensor sum = L::Add()({f, i});
  CHECK(sum.dtype() == k::DType::float32);
  check_values(sum, {1.5, 0.5, 1.5, 2.5});
  // Text does not join numbers: the op's dtype error, naming both.
  const std::string text_msg = message_of([&] {
    L::Concatenate()({k::Tensor(std::vector<std::string>{"a", "b"}, k::Shape{2, 1}), f});
  });
  CHECK(text_msg.find("string") != std::string::npos);
  CHECK(text_msg.find("float32") != std::string::npos);
  k::Tensor ints = L::Concatenate()({k::Tensor({{1}, {2}}), i});
  CHECK(ints.dtype() == k::DType::int64);
  check_values(ints, {1, 1, 0, 2, 0, 1});
}

TEST_CASE("Dot") {
  k::Tensor a({{1.f, 2.f}, {3.f, 4.f}}), b({{5.f, 6.f}, {7.f, 8.f}});
  k::Tensor y = L::Dot(1)({a, b});
  CHECK(y.shape() == k::Shape{2, 1});
  check_values(y, {17, 53});
  // normalize=true gives the cosine similarity.
  k::Tensor cs = L::Dot(1, {.normalize = true})({a, b});
  check_values(cs, {17 / (std::sqrt(5.0) * std::sqrt(61.0)), 53 / (5.0 * std::sqrt(113.0))}, 1e-5);
  // (1, 2, 3) · (1, 3, 2) over axes (2, 1) is a matrix product.
  k::Tensor m1 = k::reshape(k::range(1.0, 7.0, 1.0, k::float32), {1, 2, 3});
  k::Tensor m2 = k::reshape(k::range(1.0, 7.0, 1.0, k::float32), {1, 3, 2});
  k::Tensor mm = L::Dot({2, 1})({m1, m2});
  CHECK(mm.shape() == k::Shape{1, 2, 2});
  check_values(mm, {22, 28, 49, 64});
  // axes (1, 1) on (b, 3, 2) x (b, 3, 4) -> (b, 2, 4): contraction over the first feature axis.
  CHECK(L::Dot(1)({k::ones({2, 3, 2}), k::ones({2, 3, 4})}).shape() == k::Shape{2, 2, 4});
  CHECK(L::Dot(-1)({k::Input({3, 5}), k::Input({4, 5})}).shape() == k::Shape{k::None, 3, 4});
  std::string msg = message_of([&] { L::Dot(1)({k::Input({3}), k::Input({4})}); });
  CHECK(msg.find("Incompatible input shapes: axis values 3 (at axis 1) != 4 (at axis 1)") != std::string::npos);
}

TEST_CASE("functional merge helpers: keras.layers.add, concatenate, dot, ...") {
  k::Tensor a({{1.f, 5.f}}), b({{3.f, 4.f}}), c({{2.f, 0.f}});
  check_values(L::add({a, b, c}), {6, 9});
  check_values(L::subtract({a, b}), {-2, 1});
  check_values(L::multiply({a, b, c}), {6, 0});
  check_values(L::average({a, b}), {2, 4.5});
  check_values(L::maximum({a, b, c}), {3, 5});
  check_values(L::minimum({a, b, c}), {1, 0});
  check_values(L::concatenate({a, b}), {1, 5, 3, 4});
  CHECK(L::concatenate({a, b}, 0).shape() == k::Shape{2, 2});
  check_values(L::dot({a, b}, 1), {23});
  check_values(L::dot({a, b}, 1, true), {23 / (std::sqrt(26.0) * 5.0)}, 1e-5);
  // On symbolic tensors each helper adds a layer to the graph, as in Keras.
  k::clear_session();
  k::Tensor x = k::Input({2}), y = k::Input({2});
  k::Model model({x, y}, L::concatenate({L::add({x, y}, {.name = "sum"}), L::multiply({x, y})}));
  CHECK(model.get_layer("sum")->class_name() == "Add");
  check_values(model(std::vector<k::Tensor>{a, b}).at(0), {4, 9, 3, 20});
  CHECK_THROWS(L::subtract({a, b, c}));
}

}  // namespace test_merge_layers
