// NumPy habits on tensors: comparisons with numbers, t[mask], t[indices],
// JAX's t.at[...] updates, nonzero, scatter, scatter_update, unique,
// to_categorical and normalize. Expected values are Keras 3.15's (JAX backend)
// outputs for the same inputs; gradients are checked against central differences.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kiln/autodiff/gradient_check.h"
#include "kiln/core/error.h"
#include "kiln/core/tensor.h"
#include "kiln/ops/ops.h"
#include "kiln/utils/numerical.h"

namespace test_index_tensor_ops {

namespace k = kiln;
using k::Slice;
using T = k::Tensor;
using Ins = std::vector<T>;

namespace {
void values_are(const T& t, const std::vector<double>& want, double eps = 1e-6) {
  auto got = t.to_vector<double>();
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element ", i);
    CHECK(got[i] == doctest::Approx(want[i]).epsilon(eps));
  }
}
void grad_ok(const std::function<T(const Ins&)>& f, const Ins& in) {
  auto r = k::check_gradients(f, in);
  INFO(r.report);
  CHECK(r.ok);
}
template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  FAIL("no exception");
  return "";
}
T f64(const k::Shape& s, uint64_t seed) { return k::random::normal(s, 0, 1, k::float64, seed); }
}  // namespace

TEST_CASE("comparisons with a number, on either side") {
  T labels({3, -1, 0, -1});
  values_are(k::cast(labels == -1, k::int32), {0, 1, 0, 1});
  values_are(k::cast(labels != -1, k::int32), {1, 0, 1, 0});
  values_are(k::cast(-1 == labels, k::int32), {0, 1, 0, 1});
  values_are(k::cast(0 < labels, k::int32), {1, 0, 0, 0});
  values_are(k::cast(0 >= labels, k::int32), {0, 1, 1, 1});
  // An integer tensor meets a fraction as NumPy does, not as a truncated integer.
  values_are(k::cast(labels == 0.5, k::int32), {0, 0, 0, 0});
  values_are(k::cast(labels < 0.5, k::int32), {0, 1, 1, 1});
  values_are(k::cast(-0.5 > labels, k::int32), {0, 1, 0, 1});
  T flags({true, false});
  values_are(k::cast(flags == 1, k::int32), {1, 0});
}

TEST_CASE("t[mask] and t[indices]") {
  T x({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  values_are(x[x > 2.5], {3, 4, 5, 6});
  T rows = x[T({false, true})];
  CHECK(rows.shape() == k::Shape{1, 3});
  values_are(rows, {4, 5, 6});
  T picked = x[T({1, -2, 1})];
  CHECK(picked.shape() == k::Shape{3, 3});
  values_are(picked, {4, 5, 6, 1, 2, 3, 4, 5, 6});
  // A braced list is still NumPy subscripts.
  CHECK(x[{1, 2}].item<float>() == 6.f);
  auto bad = message_of<k::IndexError>([&] { (void)x[T({true, false, true})]; });
  CHECK(bad.find("a mask of shape (3,) does not match the leading axes of a tensor of shape (2, 3)") !=
        std::string::npos);
  auto far = message_of<k::IndexError>([&] { (void)x[T({2})]; });
  CHECK(far.find("index 2 is out of bounds for axis 0 with size 2") != std::string::npos);
  CHECK_THROWS_AS((void)x[T({0.5f})], k::TypeError);
  grad_ok([](const Ins& in) { return in[0][in[0] > 0.0] * 3.0; }, {f64({3, 4}, 1)});
  grad_ok([](const Ins& in) { return in[0][T({2, 0, 2})]; }, {f64({3, 2}, 2)});
}

TEST_CASE("t.at(...).set and .add return new tensors") {
  T y({3, -1, 0, -1});
  T fixed = y.at(y == -1).set(0);
  values_are(fixed, {3, 0, 0, 0});
  values_are(y, {3, -1, 0, -1});  // unchanged
  T x({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  values_are(x.at({Slice(), 1}).add(10), {1, 12, 3, 4, 15, 6});
  values_are(x.at(T({1})).set(T({7.f, 8.f, 9.f})), {1, 2, 3, 7, 8, 9});
  // Duplicate indices: add accumulates (JAX's .at[].add), set keeps the last.
  values_are(x.at(T({0, 0})).add(1), {3, 4, 5, 4, 5, 6});
  values_are(x.at(T({0, 0})).set(T({{0.f, 0.f, 0.f}, {9.f, 9.f, 9.f}})), {9, 9, 9, 4, 5, 6});
  values_are(x.at(x > 4.5).get(), {5, 6});
  grad_ok([](const Ins& in) { return in[0].at(in[0] > 0.0).set(in[1]); }, {f64({2, 3}, 3), f64({}, 4)});
  grad_ok([](const Ins& in) { return in[0].at({Slice(0, 1)}).add(in[1]); }, {f64({2, 3}, 5), f64({3}, 6)});
}

TEST_CASE("nonzero, scatter and scatter_update as Keras computes them") {
  auto nz = k::nonzero(T({{3, 1, 3}, {2, 1, 0}}));
  REQUIRE(nz.size() == 2);
  values_are(nz[0], {0, 0, 0, 1, 1});
  values_are(nz[1], {0, 1, 2, 0, 1});
  // keras.ops.scatter([[0, 1], [0, 1], [1, 2]], [1, 2, 3], (2, 3)) -> [[0, 3, 0], [0, 0, 3]]
  values_are(k::scatter(T({{0, 1}, {0, 1}, {1, 2}}), T({1.f, 2.f, 3.f}), {2, 3}), {0, 3, 0, 0, 0, 3});
  // keras.ops.scatter_update(zeros((2, 3)), [[0, 1], [1, 2], [0, 1]], [5, 6, 7]) -> [[0, 7, 0], [0, 0, 6]]
  T z = k::zeros({2, 3});
  values_are(k::scatter_update(z, T({{0, 1}, {1, 2}, {0, 1}}), T({5.f, 6.f, 7.f})), {0, 7, 0, 0, 0, 6});
  // Whole rows: indices (N, 1) into (3, 2).
  values_are(k::scatter_update(k::zeros({3, 2}), T({{2}}), T({{1.f, 2.f}})), {0, 0, 0, 0, 1, 2});
  auto oob = message_of<k::IndexError>([&] { k::scatter_update(z, T({{0, 3}}), T({1.f})); });
  CHECK(oob.find("index 3 (row 0 of indices) is out of bounds for axis 1 with size 3 (shape (2, 3))") !=
        std::string::npos);
  auto shape = message_of<k::ValueError>([&] { k::scatter(T({{0, 1}}), T({1.f, 2.f}), {2, 3}); });
  CHECK(shape.find("expected values of shape (1,)") != std::string::npos);
  T idx({{1, 0}, {0, 2}, {1, 0}});
  grad_ok([idx](const Ins& in) { return k::scatter(idx, in[0], {2, 3}); }, {f64({3}, 7)});
  grad_ok([idx](const Ins& in) { return k::scatter_update(in[0], idx, in[1]); }, {f64({2, 3}, 8), f64({3}, 9)});
}

TEST_CASE("unique as keras.ops.unique on JAX") {
  T x({{3, 1, 3}, {2, 1, 0}});
  values_are(k::unique(x), {0, 1, 2, 3});
  auto r = k::unique(x, {});
  values_are(r.indices, {5, 1, 3, 0});
  CHECK(r.inverse.shape() == k::Shape{2, 3});
  values_are(r.inverse, {3, 1, 3, 2, 1, 0});
  values_are(r.counts, {1, 2, 1, 2});
  auto padded = k::unique(T({3, 1, 3, 2}), {.size = 6});
  values_are(padded.values, {1, 2, 3, 1, 1, 1});
  values_are(padded.indices, {1, 3, 0, 1, 1, 1});
  values_are(padded.counts, {1, 1, 2, 0, 0, 0});
  values_are(k::unique(T({3, 1, 3, 2}), {.size = 5, .fill_value = -1}).values, {1, 2, 3, -1, -1});
  values_are(k::unique(T({3, 1, 3, 2}), {.size = 2}).values, {1, 2});
  auto rows = k::unique(T({{1.f, 2.f}, {0.f, 5.f}, {1.f, 2.f}}), {.axis = 0});
  values_are(rows.values, {0, 5, 1, 2});
  values_are(rows.inverse, {1, 0, 1});
  values_are(rows.counts, {1, 2});
  auto cols = k::unique(T({{1.f, 2.f}, {0.f, 5.f}, {1.f, 2.f}}), {.axis = 1});
  values_are(cols.values, {1, 2, 0, 5, 1, 2});
  values_are(cols.inverse, {0, 1});
  // NaNs are never equal to each other, and sort last.
  auto with_nan = k::unique(T({2.f, NAN, 1.f, NAN})).to_vector<float>();
  REQUIRE(with_nan.size() == 4);
  CHECK(with_nan[0] == 1.f);
  CHECK(with_nan[1] == 2.f);
  CHECK(std::isnan(with_nan[2]));
  CHECK(std::isnan(with_nan[3]));
}

TEST_CASE("to_categorical and normalize as keras.utils") {
  // keras.utils.to_categorical([[1], [0], [3]]) drops the trailing axis.
  T onehot = k::utils::to_categorical(T({{1}, {0}, {3}}));
  CHECK(onehot.shape() == k::Shape{3, 4});
  CHECK(onehot.dtype() == k::float32);
  values_are(onehot, {0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1});
  CHECK(k::utils::to_categorical(T({0, 1}), 5).shape() == k::Shape{2, 5});
  auto bad = message_of<k::ValueError>([] { k::utils::to_categorical(T({0, 7}), 5); });
  CHECK(bad.find("class 7 is outside [0, 5)") != std::string::npos);
  T x({{3.f, -4.f, 0.f}, {0.f, 0.f, 0.f}, {1.f, 2.f, 2.f}});
  values_are(k::utils::normalize(x), {0.6, -0.8, 0, 0, 0, 0, 1.0 / 3, 2.0 / 3, 2.0 / 3});
  values_are(k::normalize(x, 0, 1), {0.75, -2.0 / 3, 0, 0, 0, 0, 0.25, 1.0 / 3, 1.0});
  values_are(k::normalize(x, -1, 3),
             {0.6669718027114868, -0.8892956972122192, 0, 0, 0, 0, 0.38891109824180603, 0.7778221964836121,
              0.7778221964836121},
             1e-5);
  CHECK_THROWS_AS(k::normalize(x, -1, 0), k::ValueError);
  grad_ok([](const Ins& in) { return k::normalize(in[0], -1, 2); }, {f64({2, 3}, 10)});
}

}  // namespace test_index_tensor_ops
