// Merge layers' output masks, by Keras 3's rules (keras/src/layers/merging):
// element-wise merges OR their inputs' masks and give none when an input has
// none; Concatenate widens each mask to its input (all true where missing),
// concatenates along its axis and takes any() over the last axis; Dot gives none.
// The expected masks are what Keras 3.15's compute_mask returns for the same inputs.
#include <doctest/doctest.h>

#include <vector>

#include "kiln/layers.h"
#include "kiln/nn/masking.h"
#include "kiln/ops/ops.h"
#include "kiln/training/model.h"

namespace k = kiln;
namespace L = kiln::layers;

namespace {
/// A bool (2, 3) mask from 0/1 values.
k::Tensor mask_of(const std::vector<std::vector<float>>& v) {
  k::Tensor t({{v[0][0], v[0][1], v[0][2]}, {v[1][0], v[1][1], v[1][2]}});
  return k::greater(t, k::zeros({}));
}
k::Tensor masked(const k::Tensor& x, const k::Tensor& m) {
  k::Tensor y = x.clone();
  k::set_keras_mask(y, m);
  return y;
}
std::vector<int> bits(const k::Tensor& m) {
  std::vector<int> out;
  for (double v : k::cast(m, k::DType::float32).to_vector<double>()) out.push_back(static_cast<int>(v));
  return out;
}
}  // namespace

TEST_CASE("element-wise merges OR the inputs' masks, and give none when an input has none") {
  k::Tensor a = k::ones({2, 3, 4}), b = k::ones({2, 3, 4});
  k::Tensor ma = mask_of({{1, 1, 0}, {1, 0, 0}}), mb = mask_of({{1, 0, 0}, {1, 1, 1}});
  for (auto layer : std::vector<k::LayerPtr>{L::Add().ptr(), L::Subtract().ptr(), L::Multiply().ptr(),
                                             L::Average().ptr(), L::Maximum().ptr(), L::Minimum().ptr()}) {
    CAPTURE(layer->class_name());
    k::Tensor y = (*layer)({masked(a, ma), masked(b, mb)}).at(0);
    REQUIRE(k::get_keras_mask(y).defined());
    CHECK(bits(k::get_keras_mask(y)) == std::vector<int>{1, 1, 0, 1, 1, 1});
    // Only the second input masked: Keras 3 gives no mask.
    k::Tensor z = (*layer)({a, masked(b, mb)}).at(0);
    CHECK_FALSE(k::get_keras_mask(z).defined());
  }
}

TEST_CASE("Concatenate on the last axis: a missing mask counts as all true") {
  k::Tensor a = k::ones({2, 3, 4}), b = k::ones({2, 3, 2});
  k::Tensor ma = mask_of({{1, 1, 0}, {1, 0, 0}}), mb = mask_of({{1, 0, 0}, {0, 0, 1}});
  k::Tensor both = L::Concatenate()({masked(a, ma), masked(b, mb)});
  CHECK(bits(k::get_keras_mask(both)) == std::vector<int>{1, 1, 0, 1, 0, 1});
  k::Tensor second = L::Concatenate()({a, masked(b, mb)});  // only the second input masked
  CHECK(bits(k::get_keras_mask(second)) == std::vector<int>{1, 1, 1, 1, 1, 1});
  CHECK_FALSE(k::get_keras_mask(L::Concatenate()({a, b})).defined());
}

TEST_CASE("Concatenate on the time axis concatenates the masks") {
  k::Tensor a = k::ones({2, 3, 4}), b = k::ones({2, 3, 4});
  k::Tensor ma = mask_of({{1, 1, 0}, {1, 0, 0}});
  k::Tensor y = L::Concatenate({.axis = 1})({masked(a, ma), b});
  CHECK(y.shape() == k::Shape{2, 6, 4});
  CHECK(bits(k::get_keras_mask(y)) == std::vector<int>{1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1});
}

TEST_CASE("Dot gives no mask") {
  k::Tensor a = k::ones({2, 3, 4}), b = k::ones({2, 3, 4});
  k::Tensor ma = mask_of({{1, 1, 0}, {1, 0, 0}});
  k::Tensor y = L::Dot(-1)({masked(a, ma), masked(b, ma)});
  CHECK(y.shape() == k::Shape{2, 3, 3});
  CHECK_FALSE(k::get_keras_mask(y).defined());
}

TEST_CASE("a merged mask reaches the next layer in a functional model") {
  k::clear_session();
  auto x1 = k::Input({3}), x2 = k::Input({3});
  auto e1 = L::Embedding(5, 2, {.mask_zero = true})(x1);
  auto e2 = L::Embedding(5, 2, {.mask_zero = true})(x2);
  auto sum = L::Add()({e1, e2});
  k::Model m(std::vector{x1, x2}, sum);
  k::Tensor ids1 = k::cast(k::Tensor({{1.f, 0.f, 0.f}, {0.f, 0.f, 0.f}}), k::DType::int32);
  k::Tensor ids2 = k::cast(k::Tensor({{1.f, 2.f, 0.f}, {0.f, 0.f, 3.f}}), k::DType::int32);
  auto out = m(std::vector{ids1, ids2});
  REQUIRE(k::get_keras_mask(out.at(0)).defined());
  CHECK(bits(k::get_keras_mask(out.at(0))) == std::vector<int>{1, 1, 0, 0, 0, 1});
}
