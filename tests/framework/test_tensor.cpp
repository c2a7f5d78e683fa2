// Tensor handle, creation functions, random tensors, shape ops and indexing.
// Expected values are computed by hand with NumPy semantics.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <algorithm>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/ops/ops.h"
#include "kiln/core/tensor.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_tensor {

namespace k = kiln;
using k::Slice;

namespace {
void check_values(const k::Tensor& t, const std::vector<double>& expected, double eps = 1e-6) {
  auto got = t.to_vector<double>();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element ", i);
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(eps));
  }
}
// 0, 1, ..., n-1 as float32 with the given shape.
k::Tensor iota(const k::Shape& s) { return k::reshape(k::range(0.0, static_cast<double>(s.num_elements())), s); }
}  // namespace

TEST_CASE("Tensor: scalars of every dtype") {
  k::Tensor f(1.5f), d(2.25), i(int32_t{-3}), l(int64_t{1} << 40), b(true);
  CHECK(f.dtype() == k::float32);
  CHECK(d.dtype() == k::float32);  // a double is a Python float: float32 unless asked
  CHECK(k::Tensor(2.25, k::float64).dtype() == k::float64);
  CHECK(i.dtype() == k::int32);
  CHECK(l.dtype() == k::int64);
  CHECK(b.dtype() == k::bool_);
  for (const auto& t : {f, d, i, l, b}) {
    CHECK(t.rank() == 0);
    CHECK(t.size() == 1);
    CHECK(t.shape() == k::Shape{});
    CHECK(t.shape().to_string() == "()");
  }
  CHECK(f.item<float>() == 1.5f);
  CHECK(d.item<double>() == 2.25);
  CHECK(i.item<int32_t>() == -3);
  CHECK(l.item<int64_t>() == (int64_t{1} << 40));
  CHECK(b.item<bool>() == true);
  k::Tensor u(std::vector<uint8_t>{0, 7, 255}, k::Shape{3});
  CHECK(u.dtype() == k::uint8);
  CHECK(u.to_vector<int>() == std::vector<int>{0, 7, 255});
  CHECK(k::dtype_size(k::float32) == 4);
  CHECK(k::dtype_size(k::float64) == 8);
  CHECK(k::dtype_size(k::int64) == 8);
  CHECK(k::dtype_size(k::uint8) == 1);
  CHECK(k::dtype_name(k::bool_) == "bool");
  CHECK(k::dtype_from_name("int64") == k::int64);
}

TEST_CASE("Tensor: nested initializer lists") {
  k::Tensor a({1.f, 2.f, 3.f});
  CHECK(a.shape() == k::Shape{3});
  CHECK(a.dtype() == k::float32);
  k::Tensor b({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  CHECK(b.shape() == k::Shape{2, 3});
  check_values(b, {1, 2, 3, 4, 5, 6});
  k::Tensor c({{{1.f, 2.f}, {3.f, 4.f}}, {{5.f, 6.f}, {7.f, 8.f}}, {{9.f, 10.f}, {11.f, 12.f}}});
  CHECK(c.shape() == k::Shape{3, 2, 2});
  check_values(c, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  k::Tensor d4({{{{1.f, 2.f}, {3.f, 4.f}}}});
  CHECK(d4.shape() == k::Shape{1, 1, 2, 2});
  k::Tensor dd({{1.0, 2.0}, {3.0, 4.0}});
  CHECK(dd.dtype() == k::float32);
  CHECK(k::Tensor({{1.0, 2.0}, {3.0, 4.0}}, k::float64).dtype() == k::float64);
  k::Tensor ii({{1, 2}, {3, 4}});
  CHECK(ii.dtype() == k::int32);
  CHECK(ii.to_vector<int32_t>() == std::vector<int32_t>{1, 2, 3, 4});
  k::Tensor ll({int64_t{5}, int64_t{6}});
  CHECK(ll.dtype() == k::int64);
  CHECK_THROWS_AS(k::Tensor({{1.f, 2.f}, {3.f}}), k::ValueError);
}

TEST_CASE("Tensor: a one-element braced list is a list with or without a dtype, never a scalar") {
  // tf.constant([0.5], tf.float64) has shape (1,). The scalar constructor Tensor(double, DType) used to
  // compete with the list one: clang 14 called it ambiguous and g++ 12 made a scalar of shape ().
  CHECK(k::Tensor({0.5}).shape() == k::Shape{1});
  const k::Tensor a({0.5}, k::float64);
  CHECK(a.shape() == k::Shape{1});
  CHECK(a.dtype() == k::float64);
  CHECK(a.to_vector<double>() == std::vector<double>{0.5});
  CHECK(k::Tensor({2}, k::int64).shape() == k::Shape{1});
  CHECK(k::Tensor({2}, k::int64).dtype() == k::int64);
  const k::Tensor row({{-2.5, 1.3}}, k::float64);
  CHECK(row.shape() == k::Shape{1, 2});
  CHECK(row.to_vector<double>() == std::vector<double>{-2.5, 1.3});
  CHECK(k::Tensor({{{0.5}}}, k::float64).shape() == k::Shape{1, 1, 1});
  CHECK(k::Tensor({{{{0.5}}}}, k::float64).shape() == k::Shape{1, 1, 1, 1});
  // A plain number with a dtype stays a scalar.
  CHECK(k::Tensor(0.5, k::float64).shape() == k::Shape{});
  CHECK(k::Tensor(1, k::float64).item<double>() == 1.0);
}

TEST_CASE("Tensor: flat vector plus shape, and zero-size dimensions") {
  k::Tensor t(std::vector<double>{1, 2, 3, 4, 5, 6}, k::Shape{3, 2});
  CHECK(t.dtype() == k::float64);
  CHECK(t.shape() == k::Shape{3, 2});
  CHECK(t.data<double>()[5] == 6.0);
  k::Tensor bools(std::vector<bool>{true, false, true}, k::Shape{3});
  CHECK(bools.dtype() == k::bool_);
  CHECK(bools.to_vector<int>() == std::vector<int>{1, 0, 1});
  CHECK_THROWS_AS(k::Tensor(std::vector<float>{1, 2, 3}, k::Shape{2, 2}), k::ValueError);

  k::Tensor z = k::zeros({0, 3});
  CHECK(z.shape() == k::Shape{0, 3});
  CHECK(z.size() == 0);
  CHECK(z.to_vector<float>().empty());
  k::Tensor z2 = k::ones({2, 0, 4}, k::int64);
  CHECK(z2.size() == 0);
  CHECK(k::sum(k::zeros({0, 3}), 0).shape() == k::Shape{3});
  check_values(k::sum(k::zeros({0, 3}), 0), {0, 0, 0});
  CHECK(k::concat({k::ones({2, 3}), k::zeros({0, 3})}, 0).shape() == k::Shape{2, 3});
  CHECK(k::reshape(z, {3, 0}).shape() == k::Shape{3, 0});
  CHECK(k::Tensor(std::vector<float>{}, k::Shape{0}).size() == 0);
}

TEST_CASE("Tensor: zeros, ones, fill, eye, range, linspace") {
  check_values(k::zeros({2, 2}), {0, 0, 0, 0});
  CHECK(k::ones({3}, k::int32).dtype() == k::int32);
  check_values(k::ones({3}, k::int32), {1, 1, 1});
  k::Tensor f = k::fill({2, 3}, 2.5, k::float64);
  CHECK(f.dtype() == k::float64);
  CHECK(f.shape() == k::Shape{2, 3});
  check_values(f, {2.5, 2.5, 2.5, 2.5, 2.5, 2.5});
  check_values(k::zeros_like(f), {0, 0, 0, 0, 0, 0});
  CHECK(k::ones_like(f).dtype() == k::float64);
  check_values(k::eye(3), {1, 0, 0, 0, 1, 0, 0, 0, 1});
  k::Tensor e = k::eye(2, 3, k::int64);
  CHECK(e.shape() == k::Shape{2, 3});
  CHECK(e.dtype() == k::int64);
  CHECK(e.to_vector<int64_t>() == std::vector<int64_t>{1, 0, 0, 0, 1, 0});
  k::Tensor r = k::range(5);
  CHECK(r.dtype() == k::int32);
  CHECK(r.to_vector<int32_t>() == std::vector<int32_t>{0, 1, 2, 3, 4});
  check_values(k::range(1.0, 2.0, 0.25), {1.0, 1.25, 1.5, 1.75});
  check_values(k::range(5.0, 0.0, -2.0), {5, 3, 1});
  CHECK(k::range(3.0, 1.0).size() == 0);
  k::Tensor l = k::linspace(-2, 2, 5);
  CHECK(l.dtype() == k::float32);
  check_values(l, {-2, -1, 0, 1, 2});
  k::Tensor l201 = k::linspace(-2, 2, 201, k::float64);
  CHECK(l201.shape() == k::Shape{201});
  CHECK(l201.to_vector<double>()[100] == doctest::Approx(0.0));
  CHECK(l201.to_vector<double>()[1] == doctest::Approx(-1.98));
  CHECK(l201.to_vector<double>()[200] == 2.0);
  check_values(k::linspace(3, 7, 1), {3});
  k::Tensor s = k::scalar_like(2.0, k::zeros({4}, k::float64));
  CHECK(s.dtype() == k::float64);
  CHECK(s.rank() == 0);
}

TEST_CASE("random: same seed gives the same values") {
  k::random::set_seed(42);
  k::Tensor a = k::random::normal({50});
  k::Tensor a2 = k::random::normal({50});
  k::random::set_seed(42);
  k::Tensor b = k::random::normal({50});
  CHECK(a.to_vector<float>() == b.to_vector<float>());
  CHECK(a.to_vector<float>() != a2.to_vector<float>());
  // An explicit seed ignores the global generator.
  CHECK(k::random::uniform({10}, 0, 1, k::float32, 7).to_vector<float>() ==
        k::random::uniform({10}, 0, 1, k::float32, 7).to_vector<float>());
  k::random::set_seed(3);
  auto p1 = k::random::permutation(20).to_vector<int64_t>();
  k::random::set_seed(3);
  auto p2 = k::random::permutation(20).to_vector<int64_t>();
  CHECK(p1 == p2);
  std::vector<int64_t> sorted = p1;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 20; ++i) CHECK(sorted[i] == i);
}

TEST_CASE("random: normal, uniform and truncated_normal statistics") {
  k::random::set_seed(123);
  k::Tensor n = k::random::normal({20000}, 1.0, 2.0, k::float64);
  CHECK(n.dtype() == k::float64);
  CHECK(k::mean(n).item<double>() == doctest::Approx(1.0).epsilon(0.05));
  CHECK(k::std(n).item<double>() == doctest::Approx(2.0).epsilon(0.05));

  k::Tensor u = k::random::uniform({20000}, 2.0, 5.0);
  CHECK(k::min(u).item<float>() >= 2.0f);
  CHECK(k::max(u).item<float>() < 5.0f);
  CHECK(k::mean(u).item<float>() == doctest::Approx(3.5).epsilon(0.02));

  k::Tensor ui = k::random::uniform({1000}, 0, 10, k::int32);
  CHECK(ui.dtype() == k::int32);
  auto iv = ui.to_vector<int32_t>();
  std::vector<int> counts(10, 0);
  for (int v : iv) {
    REQUIRE(v >= 0);
    REQUIRE(v < 10);
    counts[v]++;
  }
  for (int c : counts) CHECK(c > 50);  // every value in [0, 10) is drawn

  k::Tensor t = k::random::truncated_normal({20000}, 1.0, 0.5);
  CHECK(k::min(t).item<float>() >= 1.0f - 2 * 0.5f);
  CHECK(k::max(t).item<float>() <= 1.0f + 2 * 0.5f);
  CHECK(k::min(t).item<float>() < 0.1f);  // the tails are reached
  CHECK(k::mean(t).item<float>() == doctest::Approx(1.0).epsilon(0.02));
  // Truncation at 2 sd shrinks the standard deviation to about 0.88 sd.
  CHECK(k::std(t).item<float>() == doctest::Approx(0.88 * 0.5).epsilon(0.05));
}

TEST_CASE("Tensor: to_vector, item and cast") {
  k::Tensor x({1.7f, -1.7f, 0.f, 3.f});
  CHECK(x.to_vector<int>() == std::vector<int>{1, -1, 0, 3});
  k::Tensor xi = k::cast(x, k::int32);
  CHECK(xi.dtype() == k::int32);
  CHECK(xi.to_vector<int32_t>() == std::vector<int32_t>{1, -1, 0, 3});  // truncation, like tf.cast
  k::Tensor xb = x.cast(k::bool_);
  CHECK(xb.to_vector<bool>() == std::vector<bool>{true, true, false, true});
  k::Tensor xd = x.cast(k::float64);
  CHECK(xd.to_vector<double>()[0] == doctest::Approx(1.7).epsilon(1e-6));
  CHECK(k::cast(x, k::float32).same_as(x));  // same dtype: no copy
  CHECK(k::Tensor(std::vector<float>{5.f}, k::Shape{1, 1}).item<float>() == 5.f);
  CHECK(k::Tensor(int32_t{7}).item<double>() == 7.0);
  CHECK_THROWS_AS(x.item<float>(), k::ValueError);
  CHECK(x.data<float>()[1] == -1.7f);
}

TEST_CASE("Tensor: copies alias, clone copies") {
  k::Tensor a({1.f, 2.f, 3.f});
  k::Tensor b = a;
  CHECK(b.same_as(a));
  CHECK(b.id() == a.id());
  b.data<float>()[0] = 10.f;
  CHECK(a.to_vector<float>()[0] == 10.f);
  k::Tensor c = a.clone();
  CHECK_FALSE(c.same_as(a));
  CHECK(c.id() != a.id());
  c.data<float>()[1] = 20.f;
  CHECK(a.to_vector<float>() == std::vector<float>{10.f, 2.f, 3.f});
  CHECK(c.to_vector<float>() == std::vector<float>{10.f, 20.f, 3.f});
  CHECK_FALSE(k::Tensor().defined());
  CHECK(a.to(k::Device::cpu()).same_as(a));
}

TEST_CASE("reshape shares storage and infers -1") {
  k::Tensor x = iota({2, 3, 4});
  k::Tensor r = k::reshape(x, {6, 4});
  CHECK(r.shape() == k::Shape{6, 4});
  CHECK(r.raw_data() == x.raw_data());  // no copy
  r.data<float>()[0] = 100.f;
  CHECK(x.to_vector<float>()[0] == 100.f);
  CHECK(k::reshape(x, {2, -1, 4}).shape() == k::Shape{2, 3, 4});
  CHECK(k::reshape(x, {-1}).shape() == k::Shape{24});
  CHECK(x.reshape({4, -1}).shape() == k::Shape{4, 6});
  CHECK(k::reshape(k::Tensor(3.f), {1, 1}).shape() == k::Shape{1, 1});
  CHECK(k::reshape(k::zeros({1, 1}), {}).rank() == 0);
  k::Tensor bad = k::zeros({5, 6});
  CHECK_THROWS_WITH_AS(k::reshape(bad, {2, 7}), "Input to reshape is a tensor with 30 values, but the requested shape has 14",
                       k::ShapeError);
  CHECK_THROWS_AS(k::reshape(bad, {-1, 7}), k::ShapeError);
  CHECK_THROWS_AS(k::reshape(bad, {-1, -1}), k::ValueError);
  CHECK(k::flatten(x).shape() == k::Shape{2, 12});
}

TEST_CASE("transpose with and without perm") {
  k::Tensor x = iota({2, 3, 4});
  auto xv = x.to_vector<float>();
  k::Tensor t = k::transpose(x, {1, 0, 2});
  CHECK(t.shape() == k::Shape{3, 2, 4});
  auto tv = t.to_vector<float>();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      for (int l = 0; l < 4; ++l) CHECK(tv[(i * 2 + j) * 4 + l] == xv[(j * 3 + i) * 4 + l]);
  k::Tensor rev = k::transpose(x);  // reverses the axes
  CHECK(rev.shape() == k::Shape{4, 3, 2});
  auto rv = rev.to_vector<float>();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      for (int l = 0; l < 2; ++l) CHECK(rv[(i * 3 + j) * 2 + l] == xv[(l * 3 + j) * 4 + i]);
  k::Tensor m({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  check_values(k::transpose(m), {1, 4, 2, 5, 3, 6});
  CHECK(k::transpose(x, {-1, 0, 1}).shape() == k::Shape{4, 2, 3});
}

TEST_CASE("expand_dims and squeeze") {
  k::Tensor x = iota({2, 3});
  CHECK(k::expand_dims(x, 0).shape() == k::Shape{1, 2, 3});
  CHECK(k::expand_dims(x, 1).shape() == k::Shape{2, 1, 3});
  CHECK(k::expand_dims(x, -1).shape() == k::Shape{2, 3, 1});
  CHECK(k::expand_dims(k::Tensor(1.f), 0).shape() == k::Shape{1});
  k::Tensor y = k::zeros({1, 2, 1, 3, 1});
  CHECK(k::squeeze(y).shape() == k::Shape{2, 3});
  CHECK(k::squeeze(y, {0}).shape() == k::Shape{2, 1, 3, 1});
  CHECK(k::squeeze(y, {-1, 2}).shape() == k::Shape{1, 2, 3});
  CHECK(k::expand_dims(x, 0).raw_data() == x.raw_data());
}

TEST_CASE("slicing: start:stop:step with NumPy semantics") {
  k::Tensor x = k::range(0.0, 10.0);  // [0..9]
  check_values(x[{Slice(1, 8, 2)}], {1, 3, 5, 7});
  check_values(x[{Slice(std::nullopt, std::nullopt, -1)}], {9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  check_values(x[{Slice(-2, std::nullopt)}], {8, 9});
  check_values(x[{Slice(std::nullopt, -7)}], {0, 1, 2});
  check_values(x[{Slice(8, 2, -2)}], {8, 6, 4});
  check_values(x[{Slice(-1, -4, -1)}], {9, 8, 7});
  check_values(x[{Slice(std::nullopt, std::nullopt, -3)}], {9, 6, 3, 0});
  check_values(x[{Slice(std::nullopt, 5, -2)}], {9, 7});
  check_values(x[{Slice(100, std::nullopt, -4)}], {9, 5, 1});  // start clipped to 9
  check_values(x[{Slice(-100, 3)}], {0, 1, 2});
  check_values(x[{Slice(3, 100, 3)}], {3, 6, 9});
  CHECK(x[{Slice(5, 2)}].size() == 0);
  CHECK(x[{Slice(2, 5, -1)}].size() == 0);
  CHECK(x[-1].item<float>() == 9.f);
  CHECK(x[3].rank() == 0);

  k::Tensor m = iota({3, 4});  // [[0 1 2 3] [4 5 6 7] [8 9 10 11]]
  check_values(m[1], {4, 5, 6, 7});
  check_values(m[{Slice(), 2}], {2, 6, 10});
  check_values(m[{-1, Slice(std::nullopt, std::nullopt, -1)}], {11, 10, 9, 8});
  check_values(m[{Slice(std::nullopt, std::nullopt, 2), Slice(1, 3)}], {1, 2, 9, 10});
  check_values(m[{Slice(std::nullopt, std::nullopt, -1), Slice(std::nullopt, std::nullopt, -2)}], {11, 9, 7, 5, 3, 1});
  k::Tensor na = m[{k::newaxis, Slice(), Slice(std::nullopt, std::nullopt, -1)}];
  CHECK(na.shape() == k::Shape{1, 3, 4});
  check_values(na, {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8});
  check_values(m[{k::ellipsis, 0}], {0, 4, 8});
  CHECK(m[{Slice(), k::newaxis, 1}].shape() == k::Shape{3, 1});

  k::Tensor t = iota({2, 3, 4});
  CHECK(t[{0, k::ellipsis}].shape() == k::Shape{3, 4});
  CHECK(t[{k::ellipsis, k::newaxis, 1}].shape() == k::Shape{2, 3, 1});
  check_values(t[{k::ellipsis, k::newaxis, 1}], {1, 5, 9, 13, 17, 21});
  CHECK(t[{k::ellipsis}].shape() == k::Shape{2, 3, 4});
  // t[-1, ::-2, 1:3] = t[1, [2, 0], 1:3]
  k::Tensor s = t[{-1, Slice(std::nullopt, std::nullopt, -2), Slice(1, 3)}];
  CHECK(s.shape() == k::Shape{2, 2});
  check_values(s, {21, 22, 13, 14});
  check_values(t[{Slice(), 1, k::ellipsis, Slice(-1, std::nullopt)}], {7, 19});
  check_values(k::slice(t, {1, 2, 3}), {23});
}

TEST_CASE("gather, concat, stack, split") {
  k::Tensor p({{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}});
  k::Tensor g = k::gather(p, k::Tensor({2, 0, 2}));
  CHECK(g.shape() == k::Shape{3, 2});
  check_values(g, {5, 6, 1, 2, 5, 6});
  check_values(k::gather(p, k::Tensor({int64_t{1}}), 1), {2, 4, 6});
  check_values(k::gather(p, k::Tensor({-1})), {5, 6});
  k::Tensor g2 = k::gather(p, k::Tensor({{0, 1}, {2, 2}}));
  CHECK(g2.shape() == k::Shape{2, 2, 2});
  check_values(g2, {1, 2, 3, 4, 5, 6, 5, 6});
  k::Tensor t = iota({2, 3, 4});
  k::Tensor g3 = k::gather(t, k::Tensor({3, 0}), -1);
  CHECK(g3.shape() == k::Shape{2, 3, 2});
  check_values(g3, {3, 0, 7, 4, 11, 8, 15, 12, 19, 16, 23, 20});

  k::Tensor a({{1.f, 2.f}, {3.f, 4.f}}), b({{5.f, 6.f}});
  k::Tensor c0 = k::concat({a, b});
  CHECK(c0.shape() == k::Shape{3, 2});
  check_values(c0, {1, 2, 3, 4, 5, 6});
  k::Tensor c1 = k::concat({a, k::transpose(b), a}, -1);
  CHECK(c1.shape() == k::Shape{2, 5});
  check_values(c1, {1, 2, 5, 1, 2, 3, 4, 6, 3, 4});

  k::Tensor u({1.f, 2.f, 3.f}), v({4.f, 5.f, 6.f});
  k::Tensor s0 = k::stack({u, v});
  CHECK(s0.shape() == k::Shape{2, 3});
  check_values(s0, {1, 2, 3, 4, 5, 6});
  k::Tensor s1 = k::stack({u, v}, 1);
  CHECK(s1.shape() == k::Shape{3, 2});
  check_values(s1, {1, 4, 2, 5, 3, 6});
  CHECK(k::stack({u, v, u}, -1).shape() == k::Shape{3, 3});

  k::Tensor m = iota({2, 6});
  auto parts = k::split(m, 3, 1);
  REQUIRE(parts.size() == 3);
  for (const auto& q : parts) CHECK(q.shape() == k::Shape{2, 2});
  check_values(parts[1], {2, 3, 8, 9});
  auto uneven = k::split(m, std::vector<int64_t>{1, 5}, -1);
  REQUIRE(uneven.size() == 2);
  check_values(uneven[0], {0, 6});
  CHECK(uneven[1].shape() == k::Shape{2, 5});
  check_values(uneven[1], {1, 2, 3, 4, 5, 7, 8, 9, 10, 11});
  auto rows = k::split(m, 2);
  check_values(rows[1], {6, 7, 8, 9, 10, 11});
}

TEST_CASE("broadcast_to, tile, where, one_hot") {
  k::Tensor r({1.f, 2.f, 3.f});
  k::Tensor b = k::broadcast_to(r, {2, 3});
  CHECK(b.shape() == k::Shape{2, 3});
  check_values(b, {1, 2, 3, 1, 2, 3});
  // Single-element inner lists ({{1.f}, {2.f}}) are ambiguous in C++; columns use vector + shape.
  k::Tensor col(std::vector<float>{1.f, 2.f}, k::Shape{2, 1});
  check_values(k::broadcast_to(col, {2, 2, 3}), {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2});
  CHECK(k::broadcast_shapes({3, 1}, {1, 4}) == k::Shape{3, 4});
  CHECK(k::broadcast_shapes({2, 3, 4}, {4}) == k::Shape{2, 3, 4});
  CHECK(k::broadcast_shapes({}, {5, 1}) == k::Shape{5, 1});

  k::Tensor tl = k::tile(k::Tensor({{1.f, 2.f}, {3.f, 4.f}}), {2, 3});
  CHECK(tl.shape() == k::Shape{4, 6});
  check_values(tl[0], {1, 2, 1, 2, 1, 2});
  check_values(tl[3], {3, 4, 3, 4, 3, 4});

  k::Tensor cond(std::vector<bool>{true, false, true}, k::Shape{3});
  check_values(k::where(cond, k::Tensor({1.f, 2.f, 3.f}), k::Tensor({-1.f, -2.f, -3.f})), {1, -2, 3});
  // Broadcast: cond (2, 1), x (3,), y scalar.
  k::Tensor c2(std::vector<bool>{false, true}, k::Shape{2, 1});
  k::Tensor w = k::where(c2, r, k::Tensor(0.f));
  CHECK(w.shape() == k::Shape{2, 3});
  check_values(w, {0, 0, 0, 1, 2, 3});
  // A numeric condition counts non-zeros as true.
  check_values(k::where(k::Tensor({0.f, 2.f}), k::Tensor({1.f, 1.f}), k::Tensor({5.f, 5.f})), {5, 1});

  k::Tensor oh = k::one_hot(k::Tensor({0, 2, 1, 5}), 3);
  CHECK(oh.shape() == k::Shape{4, 3});
  CHECK(oh.dtype() == k::float32);
  check_values(oh, {1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0});  // out of range -> zero row, like TF
  k::Tensor oh2 = k::one_hot(k::Tensor(std::vector<int64_t>{1, 0}, k::Shape{2, 1}), 2, k::int32);
  CHECK(oh2.shape() == k::Shape{2, 1, 2});
  CHECK(oh2.to_vector<int32_t>() == std::vector<int32_t>{0, 1, 1, 0});
}

TEST_CASE("comparisons and logical ops return bool tensors") {
  k::Tensor a({1.f, 2.f, 3.f}), b({3.f, 2.f, 1.f});
  auto bools = [](const k::Tensor& t) {
    CHECK(t.dtype() == k::bool_);
    return t.to_vector<bool>();
  };
  using B = std::vector<bool>;
  CHECK(bools(a == b) == B{false, true, false});
  CHECK(bools(a != b) == B{true, false, true});
  CHECK(bools(a < b) == B{true, false, false});
  CHECK(bools(a <= b) == B{true, true, false});
  CHECK(bools(a > b) == B{false, false, true});
  CHECK(bools(a >= b) == B{false, true, true});
  CHECK(bools(a > 1.5) == B{false, true, true});
  CHECK(bools(a <= 2.0) == B{true, true, false});
  CHECK(bools(k::equal(k::Tensor(std::vector<float>{1.f, 2.f}, k::Shape{2, 1}), a)) == B{true, false, false, false, true, false});
  CHECK(bools(k::logical_and(a > 1.5, b > 1.5)) == B{false, true, false});
  CHECK(bools(k::logical_or(a > 2.5, b > 2.5)) == B{true, false, true});
  CHECK(bools(k::logical_not(a > 1.5)) == B{true, false, false});
  CHECK(bools(k::equal(k::Tensor({1, 2}), k::Tensor({1, 3}))) == B{true, false});
  k::Tensor nanv({std::nan(""), 1.0, std::numeric_limits<double>::infinity()});
  CHECK(bools(k::isnan(nanv)) == B{true, false, false});
  CHECK(bools(k::isfinite(nanv)) == B{false, true, false});
}

TEST_CASE("element-wise maths values") {
  k::Tensor x({-1.5, -0.5, 0.5, 2.5});
  check_values(k::abs(x), {1.5, 0.5, 0.5, 2.5});
  check_values(k::sign(x), {-1, -1, 1, 1});
  check_values(k::neg(x), {1.5, 0.5, -0.5, -2.5});
  check_values(k::relu(x), {0, 0, 0.5, 2.5});
  check_values(k::floor(x), {-2, -1, 0, 2});
  check_values(k::round(x), {-2, -0., 0, 2});  // half to even, like tf.round
  check_values(k::square(x), {2.25, 0.25, 0.25, 6.25});
  check_values(k::clip(x, -1, 1), {-1, -0.5, 0.5, 1});
  check_values(k::exp(x), {std::exp(-1.5), std::exp(-0.5), std::exp(0.5), std::exp(2.5)});
  check_values(k::sigmoid(k::Tensor({0.0, 2.0, -100.0}, k::float64)), {0.5, 0.8807970779778823, 3.720075976020836e-44}, 1e-9);
  check_values(k::tanh(k::Tensor({0.5}, k::float64)), {0.46211715726000974});
  check_values(k::erf(k::Tensor({0.5}, k::float64)), {0.5204998778130465});
  check_values(k::softplus(k::Tensor({0.0, 100.0, -100.0}, k::float64)), {std::log(2.0), 100.0, 3.720075976020836e-44}, 1e-9);
  k::Tensor p({1.0, 4.0, 9.0}, k::float64);
  check_values(k::sqrt(p), {1, 2, 3});
  check_values(k::rsqrt(p), {1, 0.5, 1.0 / 3});
  check_values(k::log(p), {0, std::log(4.0), std::log(9.0)});
  check_values(k::log1p(k::Tensor({1e-10}, k::float64)), {1e-10}, 1e-12);
  check_values(k::expm1(k::Tensor({1e-10}, k::float64)), {1e-10}, 1e-12);
  check_values(k::pow(p, 0.5), {1, 2, 3});
  check_values(k::pow(k::Tensor({2.0, 3.0}, k::float64), k::Tensor({3.0, 2.0}, k::float64)), {8, 9});
  check_values(k::maximum(x, k::Tensor(0.0)), {0, 0, 0.5, 2.5});
  check_values(k::minimum(x, k::Tensor(0.0)), {-1.5, -0.5, 0, 0});
  check_values(k::sin(k::Tensor({M_PI / 2}, k::float64)), {1});
  check_values(k::cos(k::Tensor({M_PI}, k::float64)), {-1});
  // Weak typing: Python-style numbers keep the tensor's dtype.
  k::Tensor f({1.f, 2.f});
  CHECK((f * 2.0).dtype() == k::float32);
  CHECK((2.0 - f).dtype() == k::float32);
  check_values(2.0 - f, {1, 0});
  check_values(1.0 / f, {1, 0.5});
  check_values(f / 4.0 + 1.0, {1.25, 1.5});
  check_values(-f, {-1, -2});
  // Integer arithmetic stays integer.
  k::Tensor i({7, -7});
  CHECK((i + i).dtype() == k::int32);
  CHECK((i * 2.0).to_vector<int32_t>() == std::vector<int32_t>{14, -14});
}

TEST_CASE("broadcasting arithmetic") {
  k::Tensor a(std::vector<float>{1.f, 2.f, 3.f}, k::Shape{3, 1});
  k::Tensor b({{10.f, 20.f, 30.f, 40.f}});  // (1, 4)
  k::Tensor s = a + b;
  CHECK(s.shape() == k::Shape{3, 4});
  check_values(s, {11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43});
  k::Tensor t = iota({2, 3, 4}) * k::Tensor({1.f, 0.f, -1.f, 2.f});
  CHECK(t.shape() == k::Shape{2, 3, 4});
  check_values(t[{1, 2}], {20, 0, -22, 46});
  check_values(k::Tensor({6.f, 8.f}) / k::Tensor(std::vector<float>{2.f, 4.f}, k::Shape{2, 1}), {3, 4, 1.5, 2});
}

TEST_CASE("matmul values") {
  k::Tensor a({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});         // (2, 3)
  k::Tensor b({{7.f, 8.f}, {9.f, 10.f}, {11.f, 12.f}});    // (3, 2)
  k::Tensor c = k::matmul(a, b);
  CHECK(c.shape() == k::Shape{2, 2});
  check_values(c, {58, 64, 139, 154});
  check_values(k::matmul(b, a, true, true), {58, 139, 64, 154});  // (a b)^T
  check_values(k::matmul(a, a, false, true), {14, 32, 32, 77});
  check_values(k::matmul(a, a, true, false), {17, 22, 27, 22, 29, 36, 27, 36, 45});
  // Batched with a broadcast batch axis.
  k::Tensor a3 = k::stack({a, 2.0 * a});  // (2, 2, 3)
  k::Tensor c3 = k::matmul(a3, b);
  CHECK(c3.shape() == k::Shape{2, 2, 2});
  check_values(c3, {58, 64, 139, 154, 116, 128, 278, 308});
  k::Tensor c4 = k::matmul(a, k::stack({b, -1.0 * b}));  // (2,3) x (2,3,2)
  CHECK(c4.shape() == k::Shape{2, 2, 2});
  check_values(c4, {58, 64, 139, 154, -58, -64, -139, -154});
  k::Tensor c5 = k::matmul(k::reshape(a3, {2, 1, 2, 3}), k::stack({b, b, b}));
  CHECK(c5.shape() == k::Shape{2, 3, 2, 2});
  check_values(c5[{1, 2}], {116, 128, 278, 308});
  k::Tensor ad = k::cast(a, k::float64);
  CHECK(k::matmul(ad, k::cast(b, k::float64)).dtype() == k::float64);
  check_values(k::matmul(ad, k::cast(b, k::float64)), {58, 64, 139, 154});
}

TEST_CASE("reduction values") {
  k::Tensor x({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  CHECK(k::sum(x).item<double>() == 21);
  check_values(k::sum(x, 0), {5, 7, 9});
  check_values(k::sum(x, -1), {6, 15});
  CHECK(k::sum(x, 1, true).shape() == k::Shape{2, 1});
  CHECK(k::sum(x, {0, 1}, true).shape() == k::Shape{1, 1});
  CHECK(k::mean(x).item<double>() == 3.5);
  check_values(k::mean(x, 0), {2.5, 3.5, 4.5});
  CHECK(k::max(x).item<double>() == 6);
  check_values(k::min(x, 1), {1, 4});
  CHECK(k::prod(x).item<double>() == 720);
  check_values(k::prod(x, 0), {4, 10, 18});
  CHECK(k::var(x).item<double>() == doctest::Approx(35.0 / 12));
  check_values(k::var(x, 1), {2.0 / 3, 2.0 / 3});
  CHECK(k::std(x).item<double>() == doctest::Approx(std::sqrt(35.0 / 12)));
  check_values(k::logsumexp(x, -1), {3.40760596444438, 6.40760596444438});
  CHECK(k::logsumexp(k::Tensor({1000.0, 1000.0})).item<double>() == doctest::Approx(1000 + std::log(2.0)));
  k::Tensor am = k::argmax(x, 1);
  CHECK(am.dtype() == k::int64);
  CHECK(am.to_vector<int64_t>() == std::vector<int64_t>{2, 2});
  CHECK(k::argmin(x, 0).to_vector<int64_t>() == std::vector<int64_t>{0, 0, 0});
  CHECK(k::argmax(k::Tensor({1.f, 3.f, 3.f})).item<int64_t>() == 1);  // first on ties
  k::Tensor xi({{1, 2}, {3, 4}});
  CHECK(k::sum(xi).dtype() == k::int32);
  CHECK(k::sum(xi).item<int32_t>() == 10);
}

}  // namespace test_tensor
