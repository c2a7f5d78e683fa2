// GradientTape behaviour from the TF 2 autodiff guide, custom gradients,
// higher-order gradients and the golden figures listed in KERAS.md.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/ops/fused_updates.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/ops/ops.h"
#include "kiln/core/tensor.h"
#include "kiln/autodiff/variable.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_tape {

namespace k = kiln;

namespace {
void check_values(const k::Tensor& t, const std::vector<double>& expected, double eps = 1e-6) {
  auto got = t.to_vector<double>();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element ", i);
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(eps));
  }
}
}  // namespace

TEST_CASE("golden: softmax([[4, 5], [10, 1]])") {
  k::Tensor s = k::softmax(k::Tensor({{4.f, 5.f}, {10.f, 1.f}}));
  CHECK(s.dtype() == k::float32);
  check_values(s, {0.26894143, 0.73105854, 0.99987662, 1.2339458e-04});
  CHECK(s.to_vector<double>()[3] == doctest::Approx(1.2339458e-04).epsilon(1e-5).scale(0));
}

TEST_CASE("golden: d(x^2)/dx at 3 is 6") {
  k::Variable x(k::Tensor(3.0f), {.name = "x"});
  k::GradientTape tape;
  k::Tensor y = k::square(x);
  auto dy_dx = tape.gradient(y, x);
  REQUIRE(dy_dx);
  CHECK(dy_dx->dtype() == k::float32);
  CHECK(dy_dx->shape() == k::Shape{});
  CHECK(dy_dx->item<float>() == 6.0f);
}

TEST_CASE("golden: persistent tape with y = x^2, z = y^2") {
  k::Tensor x(3.0f);
  k::GradientTape tape({.persistent = true});
  tape.watch(x);
  k::Tensor y = x * x;
  k::Tensor z = y * y;
  auto dz_dy = tape.gradient(z, y);
  REQUIRE(dz_dy);
  CHECK(dz_dy->item<float>() == 18.0f);
  auto dz_dx = tape.gradient(z, x);  // 4 x^3
  REQUIRE(dz_dx);
  CHECK(dz_dx->item<float>() == 108.0f);
  auto dy_dx = tape.gradient(y, x);
  REQUIRE(dy_dx);
  CHECK(dy_dx->item<float>() == 6.0f);
  CHECK(tape.persistent());
}

TEST_CASE("golden: softplus' = sigmoid") {
  k::Tensor x = k::linspace(-5, 5, 11, k::float64);
  k::GradientTape tape;
  tape.watch(x);
  k::Tensor y = k::softplus(x);
  auto g = tape.gradient(y, x);
  REQUIRE(g);
  check_values(*g, k::sigmoid(x).to_vector<double>(), 1e-12);
  check_values(*g, {0.0066928509242848554, 0.01798620996209156, 0.04742587317756678, 0.11920292202211755,
                    0.2689414213699951, 0.5, 0.7310585786300049, 0.8807970779778823, 0.9525741268224334,
                    0.9820137900379085, 0.9933071490757153},
               1e-12);
}

TEST_CASE("golden: stable log1pexp with a custom gradient") {
  auto naive = [](const k::Tensor& x) { return k::log(1.0 + k::exp(x)); };
  auto log1pexp = k::custom_gradient([](const k::Tensor& x) {
    k::Tensor e = k::exp(x);
    return k::CustomGradientResult{k::log(1.0 + e), [e](const k::Tensor& dy) {
                                     return std::vector<k::Tensor>{dy * (1.0 - 1.0 / (1.0 + e))};
                                   }};
  });
  auto grad_of = [](auto f, float at) {
    k::Tensor x(at);
    k::GradientTape tape;
    tape.watch(x);
    k::Tensor y = f(x);
    auto g = tape.gradient(y, x);
    REQUIRE(g);
    return g->item<float>();
  };
  CHECK(grad_of(naive, 0.f) == doctest::Approx(0.5));
  CHECK(std::isnan(grad_of(naive, 100.f)));  // exp(100) overflows float32: inf / inf
  CHECK(grad_of(log1pexp, 0.f) == doctest::Approx(0.5));
  CHECK(grad_of(log1pexp, 100.f) == 1.0f);
  // The forward value is the same as the naive one where that is finite.
  CHECK(log1pexp(k::Tensor(0.f)).item<float>() == doctest::Approx(std::log(2.0)));
}

TEST_CASE("golden: clip gradients by norm with a custom gradient (TF guide)") {
  // @tf.custom_gradient def clip_gradients(y): return y, lambda dy: tf.clip_by_norm(dy, 0.5)
  auto clip_gradients = k::custom_gradient([](const k::Tensor& y) {
    return k::CustomGradientResult{y, [](const k::Tensor& dy) {
                                     k::Tensor norm = k::sqrt(k::sum(k::square(dy)));
                                     k::Tensor clipped = dy * 0.5 / k::maximum(norm, k::scalar_like(0.5, norm));
                                     return std::vector<k::Tensor>{clipped};
                                   }};
  });
  k::Variable v(k::Tensor(2.0f));
  k::GradientTape tape;
  k::Tensor output = clip_gradients(v * v);
  auto g = tape.gradient(output, v);
  REQUIRE(g);
  CHECK(g->item<float>() == doctest::Approx(2.0));  // dy = 1 clipped to 0.5, times 2v = 4
  CHECK(output.item<float>() == 4.0f);
}

TEST_CASE("golden: nested tapes give d2(x^3)/dx2 = 6x") {
  k::Variable x(k::Tensor({1.0, -2.0, 1.5}));
  k::GradientTape t2;
  std::optional<k::Tensor> dy_dx;
  {
    k::GradientTape t1;
    k::Tensor y = x * x * x;
    dy_dx = t1.gradient(y, x);
  }
  REQUIRE(dy_dx);
  check_values(*dy_dx, {3.0, 12.0, 6.75});
  auto d2 = t2.gradient(*dy_dx, x);
  REQUIRE(d2);
  check_values(*d2, {6.0, -12.0, 9.0});

  // The same through pow(x, 3) and a third derivative (= 6).
  k::Tensor s(1.5);
  k::GradientTape a({.persistent = true});
  a.watch(s);
  std::optional<k::Tensor> g1, g2;
  {
    k::GradientTape b({.persistent = true});
    b.watch(s);
    {
      k::GradientTape c;
      c.watch(s);
      k::Tensor y = k::pow(s, 3.0);
      g1 = c.gradient(y, s);
    }
    g2 = b.gradient(*g1, s);
  }
  auto g3 = a.gradient(*g2, s);
  CHECK(g1->item<double>() == doctest::Approx(6.75));
  CHECK(g2->item<double>() == doctest::Approx(9.0));
  REQUIRE(g3);
  CHECK(g3->item<double>() == doctest::Approx(6.0));
}

TEST_CASE("second derivatives of common ops through nested tapes") {
  auto second = [](const std::function<k::Tensor(const k::Tensor&)>& f, double at) {
    k::Tensor x(at);
    k::GradientTape outer;
    outer.watch(x);
    std::optional<k::Tensor> g;
    {
      k::GradientTape inner;
      inner.watch(x);
      g = inner.gradient(f(x), x);
    }
    auto h = outer.gradient(*g, x);
    REQUIRE(h);
    return h->item<double>();
  };
  const double x = 0.7;
  const double s = 1.0 / (1.0 + std::exp(-x));
  CHECK(second([](const k::Tensor& t) { return k::exp(t); }, x) == doctest::Approx(std::exp(x)));
  CHECK(second([](const k::Tensor& t) { return k::sin(t); }, x) == doctest::Approx(-std::sin(x)));
  CHECK(second([](const k::Tensor& t) { return k::tanh(t); }, x) ==
        doctest::Approx(-2 * std::tanh(x) * (1 - std::tanh(x) * std::tanh(x))));
  CHECK(second([](const k::Tensor& t) { return k::sigmoid(t); }, x) == doctest::Approx(s * (1 - s) * (1 - 2 * s)));
  CHECK(second([](const k::Tensor& t) { return k::log(t); }, x) == doctest::Approx(-1 / (x * x)));
  CHECK(second([](const k::Tensor& t) { return k::sqrt(t); }, x) == doctest::Approx(-0.25 * std::pow(x, -1.5)));
  CHECK(second([](const k::Tensor& t) { return 1.0 / t; }, x) == doctest::Approx(2 / (x * x * x)));
  CHECK(second([](const k::Tensor& t) { return k::softplus(t); }, x) == doctest::Approx(s * (1 - s)));
  CHECK(second([](const k::Tensor& t) { return k::relu(t) * t; }, x) == doctest::Approx(2.0));
}

TEST_CASE("tape: trainable variables are watched automatically, non-trainable ones are not") {
  k::Variable w(k::Tensor({1.f, 2.f}), {.name = "w"});
  k::Variable c(k::Tensor({3.f, 4.f}), {.name = "c", .trainable = false});
  k::Tensor x({5.f, 6.f});
  k::GradientTape tape({.persistent = true});
  k::Tensor y = k::sum(w * c + x);
  auto gw = tape.gradient(y, w);
  REQUIRE(gw);
  check_values(*gw, {3, 4});
  CHECK_FALSE(tape.gradient(y, c));
  CHECK_FALSE(tape.gradient(y, x));  // constants are not watched
  auto watched = tape.watched_variables();
  REQUIRE(watched.size() == 1);
  CHECK(watched[0].same_as(w));
}

TEST_CASE("tape: watch(tensor) and watch(variable)") {
  k::Tensor x(3.0f);
  k::Variable c(k::Tensor(2.0f), {.trainable = false});
  k::GradientTape tape({.persistent = true});
  tape.watch(x);
  tape.watch(c);  // explicitly watching a non-trainable variable works
  k::Tensor y = x * x * c;
  CHECK(tape.gradient(y, x)->item<float>() == 12.0f);
  CHECK(tape.gradient(y, c)->item<float>() == 9.0f);
}

TEST_CASE("tape: watch_accessed_variables = false") {
  k::Variable a(k::Tensor(2.0f), {.name = "a"}), b(k::Tensor(5.0f), {.name = "b"});
  k::GradientTape tape({.persistent = true, .watch_accessed_variables = false});
  tape.watch(a);
  k::Tensor y = a * a + b * b;
  CHECK(tape.gradient(y, a)->item<float>() == 4.0f);
  CHECK_FALSE(tape.gradient(y, b));
  auto watched = tape.watched_variables();
  REQUIRE(watched.size() == 1);
  CHECK(watched[0].name() == "a");
}

TEST_CASE("tape: watched_variables in first-read order") {
  k::Variable a(k::Tensor(1.0f), {.name = "a"}), b(k::Tensor(1.0f), {.name = "b"}), c(k::Tensor(1.0f), {.name = "c"});
  k::GradientTape tape;
  // Read one at a time: the order operands are evaluated in is unspecified in C++.
  k::Tensor tb = b;
  k::Tensor ta = a;
  k::Tensor tc = c;
  k::Tensor y = tb * ta + tb * tc;
  auto watched = tape.watched_variables();
  REQUIRE(watched.size() == 3);
  CHECK(watched[0].name() == "b");
  CHECK(watched[1].name() == "a");
  CHECK(watched[2].name() == "c");
}

TEST_CASE("tape: sources as one, a vector and a map") {
  k::Variable w(k::Tensor({{1.f, 2.f}, {3.f, 4.f}}), {.name = "w"});
  k::Variable b(k::Tensor({0.5f, -0.5f}), {.name = "b"});
  k::Tensor x({{1.f, 2.f}});
  auto loss_fn = [&] { return k::sum(k::square(k::matmul(x, w) + b)); };
  // y = x w + b = [[7.5, 9.5]]; dL/dy = 2y = [[15, 19]]; dL/dw = x^T dL/dy; dL/db = dL/dy
  {
    k::GradientTape tape;
    k::Tensor loss = loss_fn();
    CHECK(loss.item<float>() == doctest::Approx(7.5 * 7.5 + 9.5 * 9.5));
    auto g = tape.gradient(loss, std::vector<k::Variable>{w, b});
    REQUIRE(g.size() == 2);
    REQUIRE(g[0]);
    REQUIRE(g[1]);
    check_values(*g[0], {15, 19, 30, 38});
    check_values(*g[1], {15, 19});
  }
  {
    k::GradientTape tape;
    k::Tensor loss = loss_fn();
    auto g = tape.gradient(loss, std::vector<k::Source>{w, b});
    check_values(*g[1], {15, 19});
  }
  {
    k::GradientTape tape;
    k::Tensor loss = loss_fn();
    auto g = tape.gradient(loss, std::map<std::string, k::Source>{{"kernel", w}, {"bias", b}});
    REQUIRE(g.size() == 2);
    check_values(*g["kernel"], {15, 19, 30, 38});
    check_values(*g["bias"], {15, 19});
  }
}

TEST_CASE("tape: unconnected gradients give nullopt or zeros") {
  k::Variable x(k::Tensor(2.0f)), z(k::Tensor({1.f, 2.f, 3.f}));
  {
    k::GradientTape tape;
    k::Tensor y = x * x;
    auto g = tape.gradient(y, std::vector<k::Variable>{x, z});
    CHECK(g[0]);
    CHECK_FALSE(g[1]);
  }
  {
    k::GradientTape tape;
    k::Tensor y = x * x;
    auto g = tape.gradient(y, z, k::UnconnectedGradients::Zero);
    REQUIRE(g);
    CHECK(g->shape() == k::Shape{3});
    check_values(*g, {0, 0, 0});
  }
}

TEST_CASE("tape: a non-scalar target differentiates its sum") {
  k::Tensor x({1.0, 2.0, 3.0});
  k::GradientTape tape({.persistent = true});
  tape.watch(x);
  k::Tensor y = x * x;
  check_values(*tape.gradient(y, x), {2, 4, 6});
  check_values(*tape.gradient(k::stack({y, 3.0 * x}), x), {5, 7, 9});
  // An explicit upstream gradient weights the outputs.
  auto g = tape.gradient(y, std::vector<k::Source>{x}, k::Tensor({1.0, 0.0, -1.0}));
  check_values(*g[0], {2, 0, -6});
}

TEST_CASE("tape: non-persistent tapes allow one gradient() call, persistent ones many") {
  k::Variable x(k::Tensor(3.0f));
  k::GradientTape tape;
  k::Tensor y = x * x;
  CHECK(tape.gradient(y, x)->item<float>() == 6.0f);
  CHECK_FALSE(tape.persistent());
  CHECK_THROWS_AS(tape.gradient(y, x), k::RuntimeError);
  try {
    tape.gradient(y, x);
  } catch (const k::RuntimeError& e) {
    CHECK(std::string(e.what()).find("non-persistent GradientTape") != std::string::npos);
  }

  k::GradientTape p({.persistent = true});
  k::Tensor y2 = x * x;
  k::Tensor y3 = y2 * x;
  for (int i = 0; i < 3; ++i) {
    CHECK(p.gradient(y2, x)->item<float>() == 6.0f);
    CHECK(p.gradient(y3, x)->item<float>() == 27.0f);
  }
}

TEST_CASE("tape: control flow records only the branch taken") {
  k::Tensor x(1.0f);
  k::Variable v0(k::Tensor(2.0f)), v1(k::Tensor(2.0f));
  k::GradientTape tape({.persistent = true});
  tape.watch(x);
  k::Tensor result;
  if (x.item<float>() > 0.0f)
    result = v0;
  else
    result = k::pow(v1, 2.0);
  auto g = tape.gradient(result, std::vector<k::Variable>{v0, v1});
  REQUIRE(g[0]);
  CHECK(g[0]->item<float>() == 1.0f);
  CHECK_FALSE(g[1]);
  CHECK_FALSE(tape.gradient(result, x));
  // A loop records every iteration that runs.
  k::Variable w(k::Tensor(1.5f));
  k::GradientTape t2;
  k::Tensor acc = k::Tensor(1.0f);
  for (int i = 0; i < 4; ++i) acc = acc * w;
  CHECK(t2.gradient(acc, w)->item<float>() == doctest::Approx(4 * 1.5 * 1.5 * 1.5));
}

TEST_CASE("tape: integer sources give nullopt") {
  k::Tensor xi(int32_t{3});
  k::Variable xv(k::Tensor(int64_t{2}));
  k::GradientTape tape({.persistent = true});
  tape.watch(xi);  // prints a warning and watches nothing
  k::Tensor y = xi * xi;
  CHECK(y.item<int32_t>() == 9);
  CHECK_FALSE(tape.gradient(y, xi));
  k::Tensor z = k::cast(xv, k::float32) * 2.0;
  CHECK_FALSE(tape.gradient(z, xv));
  CHECK_FALSE(tape.gradient(z, xv, k::UnconnectedGradients::Zero));
}

TEST_CASE("tape: an op without a gradient rule raises LookupError naming it") {
  // The second derivative through conv2d needs the gradient of Conv2DBackpropInput, which has none.
  k::random::set_seed(5);
  k::Tensor x = k::random::normal({1, 4, 4, 1});
  k::Variable kernel(k::random::normal({2, 2, 1, 1}), {.name = "kernel"});
  k::GradientTape outer;
  std::optional<k::Tensor> dx;
  {
    k::GradientTape inner;
    inner.watch(x);
    k::Tensor y = k::sum(k::conv2d(x, kernel));
    dx = inner.gradient(y, x);
  }
  REQUIRE(dx);
  CHECK(dx->shape() == k::Shape{1, 4, 4, 1});
  k::Tensor h = k::sum(k::square(*dx));
  CHECK_THROWS_AS(outer.gradient(h, kernel), k::LookupError);
  k::GradientTape o2;
  std::optional<k::Tensor> dx2;
  {
    k::GradientTape inner;
    inner.watch(x);
    dx2 = inner.gradient(k::sum(k::conv2d(x, kernel)), x);
  }
  try {
    o2.gradient(k::sum(k::square(*dx2)), kernel);
    FAIL("expected LookupError");
  } catch (const k::LookupError& e) {
    CHECK(std::string(e.what()).find("'Conv2DBackpropInput'") != std::string::npos);
  }
  // Wrapping the op in stop_gradient avoids the error.
  k::GradientTape o3;
  std::optional<k::Tensor> dx3;
  {
    k::GradientTape inner;
    inner.watch(x);
    dx3 = inner.gradient(k::sum(k::conv2d(x, kernel)), x);
  }
  k::Tensor h3 = k::sum(k::square(k::stop_gradient(*dx3))) + k::sum(kernel);
  auto gk = o3.gradient(h3, kernel);
  REQUIRE(gk);
  check_values(*gk, {1, 1, 1, 1});
}

TEST_CASE("tape: stop_gradient blocks, identity passes") {
  k::Tensor x({2.0, 3.0});
  k::GradientTape tape({.persistent = true});
  tape.watch(x);
  k::Tensor y = x * k::stop_gradient(x);
  check_values(*tape.gradient(y, x), {2, 3});  // not 2x
  CHECK_FALSE(tape.gradient(k::stop_gradient(x * x), x));
  k::Tensor i = k::identity(x);
  CHECK(i.id() != x.id());
  check_values(*tape.gradient(i * i, x), {4, 6});
}

TEST_CASE("tape: recording costs nothing without a tape") {
  CHECK_FALSE(k::is_recording());
  {
    k::GradientTape tape;
    CHECK(k::is_recording());
    {
      auto pause = tape.stop_recording();
      CHECK_FALSE(k::is_recording());
    }
    CHECK(k::is_recording());
  }
  CHECK_FALSE(k::is_recording());
  {
    k::GradientTape a;
    {
      k::GradientTape b;
      CHECK(k::is_recording());
    }
    CHECK(k::is_recording());
  }
  CHECK_FALSE(k::is_recording());
}

TEST_CASE("tape: stop_recording and reset") {
  k::Variable x(k::Tensor(3.0f));
  k::GradientTape tape({.persistent = true});
  k::Tensor y = x * x;
  k::Tensor z;
  {
    auto pause = tape.stop_recording();
    z = y * 2.0;  // not recorded
  }
  CHECK(tape.gradient(y, x)->item<float>() == 6.0f);
  CHECK_FALSE(tape.gradient(z, x));
  tape.reset();
  CHECK_FALSE(tape.gradient(y, x));
  k::Tensor w = x * 4.0;  // after reset the variable is watched again when read
  CHECK(tape.gradient(w, x)->item<float>() == 4.0f);
}

TEST_CASE("tape: gradients accumulate over every use and keep the source dtype") {
  k::Tensor x({1.0, 2.0}, k::float64);
  k::GradientTape tape;
  tape.watch(x);
  k::Tensor y = k::sum(x * 3.0) + k::sum(x * x) + k::cast(k::sum(k::cast(x, k::float32) * 2.0), k::float64);
  auto g = tape.gradient(y, x);
  REQUIRE(g);
  CHECK(g->dtype() == k::float64);
  check_values(*g, {3 + 2 + 2, 3 + 4 + 2});
}

TEST_CASE("Variable: value, assign and aliasing") {
  k::Tensor init({1.f, 2.f});
  k::Variable v(init, {.name = "kernel"});
  CHECK(v.name() == "kernel");
  CHECK(v.path() == "kernel");
  v.set_path("dense/kernel");
  CHECK(v.path() == "dense/kernel");
  CHECK(v.trainable());
  CHECK(v.shape() == k::Shape{2});
  CHECK(v.dtype() == k::float32);
  init.data<float>()[0] = 100.f;  // the variable copied its initial value
  CHECK(v.value().to_vector<float>() == std::vector<float>{1.f, 2.f});
  const uint64_t id = v.id();
  v.assign(k::Tensor({5.f, 6.f}));
  CHECK(v.value().to_vector<float>() == std::vector<float>{5.f, 6.f});
  v.assign_add(k::Tensor({1.f, 1.f}));
  CHECK(v.value().to_vector<float>() == std::vector<float>{6.f, 7.f});
  v.assign_sub(k::Tensor({0.5f, 0.5f}));
  CHECK(v.value().to_vector<float>() == std::vector<float>{5.5f, 6.5f});
  CHECK(v.id() == id);  // updates are in place
  v.assign(k::Tensor({1.0, 2.0}));  // another dtype is cast to the variable's
  CHECK(v.dtype() == k::float32);
  CHECK(v.value().to_vector<float>() == std::vector<float>{1.f, 2.f});
  k::Variable alias = v;
  alias.assign(k::zeros({2}));
  CHECK(v.value().to_vector<float>() == std::vector<float>{0.f, 0.f});
  CHECK(alias.same_as(v));
  v.set_trainable(false);
  CHECK_FALSE(alias.trainable());
  CHECK_FALSE(k::Variable().defined());
}

TEST_CASE("Variable: value() is a snapshot, as in TF; assigns after a read leave the tape's values alone") {
  k::Variable v(k::Tensor({1.f, 2.f}));
  k::Tensor snap = v.value();
  k::Tensor live = v.read_value_untracked();
  v.assign(k::Tensor({5.f, 6.f}));
  CHECK(snap.to_vector<float>() == std::vector<float>{1.f, 2.f});
  CHECK(live.to_vector<float>() == std::vector<float>{5.f, 6.f});
  CHECK(v.value().to_vector<float>() == std::vector<float>{5.f, 6.f});
  k::Tensor snap2 = v.value();
  v.assign_add(k::Tensor({1.f, 1.f}));
  v.assign_sub(k::Tensor({0.5f, 0.5f}));
  CHECK(snap2.to_vector<float>() == std::vector<float>{5.f, 6.f});
  CHECK(v.value().to_vector<float>() == std::vector<float>{5.5f, 6.5f});

  // The TF case: y = w·x on the tape, w updated before gradient(): dy/dx uses the old w.
  k::Variable w(k::Tensor({3.f}));
  k::Tensor x({2.f});
  k::GradientTape tape;
  tape.watch(x);
  k::Tensor y = k::multiply(w.value(), x);
  w.assign(k::Tensor({100.f}));
  auto g = tape.gradient(y, x);
  REQUIRE(g);
  CHECK(g->to_vector<float>() == std::vector<float>{3.f});

  // A fused optimizer step on a variable read by a live persistent tape does not change the tape's values.
  k::Variable p(k::Tensor({1.f, -1.f})), m(k::zeros({2})), s(k::zeros({2}));
  k::GradientTape tape2({.persistent = true});
  k::Tensor z = k::sum(k::square(p.value()));
  k::fused::adam_update(p, m, s, nullptr, k::Tensor({1.f, 1.f}), 0.1, 0.9, 0.999, 1e-7);
  auto gp = tape2.gradient(z, p);
  REQUIRE(gp);
  CHECK(gp->to_vector<float>() == std::vector<float>{2.f, -2.f});
  CHECK(p.value().to_vector<float>()[0] < 1.f);
}

}  // namespace test_tape
