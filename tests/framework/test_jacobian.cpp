// GradientTape::jacobian / batch_jacobian and gradients of structured targets,
// against central differences and the shapes and values of TF's autodiff guides.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/autodiff/variable.h"
#include "kiln/core/error.h"
#include "kiln/ops/ops.h"
#include "test_util.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_jacobian {

namespace k = kiln;
using T = k::Tensor;

namespace {
using kiln_test::check_values;
void check_close(const T& a, const T& b, double atol) {
  REQUIRE(a.shape() == b.shape());
  auto x = a.to_vector<double>(), y = b.to_vector<double>();
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(x[i] - y[i]));
  CHECK(worst <= atol);
}
/// Central differences: J[i, j] = d f(x)_i / d x_j, shape f(x).shape + x.shape (float64).
T numeric_jacobian(const std::function<T(const T&)>& f, const T& x, double h = 1e-6) {
  std::vector<double> xv = x.to_vector<double>();
  const T fx = f(x);
  const auto n = static_cast<std::size_t>(fx.size());
  std::vector<double> j(n * xv.size());
  for (std::size_t c = 0; c < xv.size(); ++c) {
    auto at = [&](double d) {
      std::vector<double> p = xv;
      p[c] += d;
      return f(T(p, x.shape())).to_vector<double>();
    };
    auto plus = at(h), minus = at(-h);
    for (std::size_t r = 0; r < n; ++r) j[r * xv.size() + c] = (plus[r] - minus[r]) / (2 * h);
  }
  std::vector<int64_t> dims = fx.shape().dims();
  for (int64_t d : x.shape().dims()) dims.push_back(d);
  return T(j, k::Shape(dims));
}
T rn(const k::Shape& s, uint64_t seed) { return k::random::normal(s, 0, 1, k::float64, seed); }
}  // namespace

TEST_CASE("jacobian: y = x * x gives diag(2x); shapes target + source") {
  T x{1.0, 2.0};
  k::GradientTape tape;
  tape.watch(x);
  T y = x * x;
  auto j = tape.jacobian(y, x);
  REQUIRE(j);
  CHECK(j->shape() == k::Shape{2, 2});
  check_values(*j, {2, 0, 0, 4});
}

TEST_CASE("jacobian: the guide's scalar source, dy/d(delta) of sigmoid(x + delta)") {
  // x = tf.linspace(-10.0, 10.0, 200+1); delta = tf.Variable(0.0); y = tf.nn.sigmoid(x + delta)
  T x = k::linspace(-10.0, 10.0, 201);
  k::Variable delta(T(0.0f), {.name = "delta"});
  k::GradientTape tape;
  T y = k::sigmoid(x + delta);
  auto dy_dx = tape.jacobian(y, delta);
  REQUIRE(dy_dx);
  CHECK(y.shape() == k::Shape{201});      // print(y.shape)     -> (201,)
  CHECK(dy_dx->shape() == k::Shape{201});  // print(dy_dx.shape) -> (201,)
  auto xs = x.to_vector<double>();
  auto got = dy_dx->to_vector<double>();
  for (std::size_t i = 0; i < xs.size(); i += 25) {
    const double s = 1 / (1 + std::exp(-xs[i]));
    CHECK(got[i] == doctest::Approx(s * (1 - s)).epsilon(1e-5));
  }
}

TEST_CASE("jacobian: the guide's dense layer kernel, (7, 10, 5, 10), sums to the gradient") {
  // layer = Dense(10, relu) on x of shape (7, 5): j = tape.jacobian(y, layer.kernel) has shape (7, 10, 5, 10),
  // and reduce_sum(j, axis=[0, 1]) equals tape.gradient(y, layer.kernel).
  T x = rn({7, 5}, 11);
  k::Variable kernel(rn({5, 10}, 12), {.name = "kernel"});
  k::Variable bias(rn({10}, 13), {.name = "bias"});
  k::GradientTape tape({.persistent = true});
  T y = k::relu(k::matmul(x, kernel) + bias);
  auto j = tape.jacobian(y, kernel);
  REQUIRE(j);
  CHECK(j->shape() == k::Shape{7, 10, 5, 10});
  auto g = tape.gradient(y, kernel);
  check_close(k::sum(*j, {0, 1}), *g, 1e-12);
  // Against central differences (relu kinks are a measure-zero risk with normal inputs).
  auto f = [&](const T& w) { return k::relu(k::matmul(x, w) + bias.value()); };
  check_close(*j, numeric_jacobian(f, kernel.value()), 1e-6);
}

TEST_CASE("jacobian: several sources, against finite differences") {
  T x = rn({3}, 21), w = rn({3, 2}, 22);
  k::GradientTape tape;
  tape.watch(x);
  tape.watch(w);
  T y = k::tanh(k::matmul(k::reshape(x, {1, 3}), w)) * k::sum(x);  // (1, 2)
  auto js = tape.jacobian(y, std::vector<k::Source>{x, w});
  REQUIRE(js[0]);
  REQUIRE(js[1]);
  CHECK(js[0]->shape() == k::Shape{1, 2, 3});
  CHECK(js[1]->shape() == k::Shape{1, 2, 3, 2});
  check_close(*js[0], numeric_jacobian([&](const T& v) { return k::tanh(k::matmul(k::reshape(v, {1, 3}), w)) * k::sum(v); }, x), 1e-7);
  check_close(*js[1], numeric_jacobian([&](const T& v) { return k::tanh(k::matmul(k::reshape(x, {1, 3}), v)) * k::sum(x); }, w), 1e-7);
}

TEST_CASE("jacobian of a gradient: the Hessian of sum(x^3) is diag(6x)") {
  T x{1.0, 2.0};
  k::GradientTape outer;
  outer.watch(x);
  std::optional<T> g;
  {
    k::GradientTape inner;
    inner.watch(x);
    T y = k::sum(x * x * x);
    g = inner.gradient(y, x);
  }
  REQUIRE(g);
  check_values(*g, {3, 12});
  auto h = outer.jacobian(*g, x);
  REQUIRE(h);
  CHECK(h->shape() == k::Shape{2, 2});
  check_values(*h, {6, 0, 0, 12});
}

TEST_CASE("jacobian: tape rules and unconnected sources, as TF") {
  T x{1.0, 2.0}, z{5.0};
  {
    k::GradientTape tape;
    tape.watch(x);
    tape.watch(z);
    T y = x * 3.0;
    CHECK_FALSE(tape.jacobian(y, z).has_value());
    // A non-persistent tape answers once, gradient or jacobian.
    try {
      (void)tape.jacobian(y, x);
      FAIL("expected a RuntimeError");
    } catch (const k::RuntimeError& e) {
      CHECK(std::string(e.what()).find("A non-persistent GradientTape can only be used to compute one set of "
                                       "gradients (or jacobians)") != std::string::npos);
    }
  }
  k::GradientTape tape({.persistent = true});
  tape.watch(x);
  tape.watch(z);
  T y = x * 3.0;
  auto zero = tape.jacobian(y, z, k::UnconnectedGradients::Zero);
  REQUIRE(zero);
  CHECK(zero->shape() == k::Shape{2, 1});
  check_values(*zero, {0, 0});
  check_values(*tape.jacobian(y, x), {3, 0, 0, 3});
  check_values(*tape.jacobian(y, x), {3, 0, 0, 3});  // persistent: again
  check_values(*tape.gradient(y, x), {3, 3});
}

TEST_CASE("batch_jacobian: TF's documented x * x and the guide's shapes") {
  {
    T x({{1.f, 2.f}, {3.f, 4.f}});
    k::GradientTape g;
    g.watch(x);
    T y = x * x;
    T bj = g.batch_jacobian(y, x);
    CHECK(bj.shape() == k::Shape{2, 2, 2});
    check_values(bj, {2, 0, 0, 4, 6, 0, 0, 8});  // [[[2, 0], [0, 4]], [[6, 0], [0, 8]]]
  }
  // x (7, 5) through two dense layers to y (7, 6): jacobian (7, 6, 7, 5), batch_jacobian (7, 6, 5),
  // and the batch Jacobian is the jacobian's diagonal blocks.
  T x = rn({7, 5}, 31), w1 = rn({5, 8}, 32), w2 = rn({8, 6}, 33);
  k::GradientTape tape({.persistent = true, .watch_accessed_variables = false});
  tape.watch(x);
  T y = k::tanh(k::matmul(k::tanh(k::matmul(x, w1)), w2));
  CHECK(y.shape() == k::Shape{7, 6});
  auto j = tape.jacobian(y, x);
  REQUIRE(j);
  CHECK(j->shape() == k::Shape{7, 6, 7, 5});
  T jb = tape.batch_jacobian(y, x);
  CHECK(jb.shape() == k::Shape{7, 6, 5});
  for (int64_t i = 0; i < 7; ++i) check_close(jb[i], (*j)[{i, k::Slice(), i}], 1e-15);
  auto f = [&](const T& v) { return k::tanh(k::matmul(k::tanh(k::matmul(v, w1)), w2)); };
  T full = numeric_jacobian(f, x);
  for (int64_t i = 0; i < 7; ++i) check_close(jb[i], full[{i, k::Slice(), i}], 1e-7);
}

TEST_CASE("batch_jacobian: TF's shape errors and zeros for an unconnected source") {
  T x = rn({3, 2}, 41), other = rn({3, 4}, 42);
  k::GradientTape tape({.persistent = true});
  tape.watch(x);
  tape.watch(other);
  T y = k::concat({x, x}, 1);  // (3, 4)
  T zeros = tape.batch_jacobian(y, other);
  CHECK(zeros.shape() == k::Shape{3, 4, 4});
  CHECK(k::sum(k::abs(zeros)).item<double>() == 0.0);
  T bj = tape.batch_jacobian(y, x);
  CHECK(bj.shape() == k::Shape{3, 4, 2});
  check_values(bj[0], {1, 0, 0, 1, 1, 0, 0, 1});
  auto msg = [&](const T& t, const T& s) {
    try {
      (void)tape.batch_jacobian(t, s);
    } catch (const k::ValueError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(msg(k::sum(y, 1), x) == "Shape (3,) must have rank at least 2");
  T x4 = rn({4, 2}, 43);
  tape.watch(x4);
  CHECK(msg(y, x4) == "Need first dimension of target shape ((3, 4)) and source shape ((4, 2)) to match.");
}

TEST_CASE("gradient of structured targets: the sum of the targets' gradients (guide: 3.75)") {
  k::Variable x(T(2.0f), {.name = "x"});
  {
    k::GradientTape tape({.persistent = true});
    T y0 = k::pow(x, 2.0);
    T y1 = 1.0 / x;
    CHECK(tape.gradient(y0, x)->item<float>() == 4.0f);    // 4.0
    CHECK(tape.gradient(y1, x)->item<float>() == -0.25f);  // -0.25
  }
  {
    k::GradientTape tape;
    T y0 = k::pow(x, 2.0);
    T y1 = 1.0 / x;
    auto g = tape.gradient({{"y0", y0}, {"y1", y1}}, x);  // tape.gradient({'y0': y0, 'y1': y1}, x)
    REQUIRE(g);
    CHECK(g->item<float>() == 3.75f);
    CHECK_THROWS_AS(tape.gradient({{"y0", y0}}, x), k::RuntimeError);  // non-persistent: once
  }
  {
    k::GradientTape tape;
    T y0 = k::pow(x, 2.0);
    T y1 = 1.0 / x;
    CHECK(tape.gradient({y0, y1}, x)->item<float>() == 3.75f);
  }
  // A non-scalar target counts as its sum: x * [3, 4] gives 7 (the guide).
  k::Variable w(T{1.0, 2.0}, {.name = "w"});
  k::GradientTape tape;
  T a = x * T{3.f, 4.f};
  T b = k::sum(w * w);
  auto gs = tape.gradient({a, b}, std::vector<k::Source>{x, w});
  CHECK(gs[0]->item<float>() == 7.0f);
  check_values(*gs[1], {2, 4});
}

}  // namespace test_jacobian
