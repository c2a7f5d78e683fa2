// Gradients through kiln::cond and kiln::while_loop inside a traced function
// that holds its GradientTape (a whole train step traced): right for both
// predicate values and every iteration count over replays, equal to the eager
// gradients and to central differences of the traced forward pass.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <cmath>
#include <functional>
#include <vector>

#include "test_util.h"

namespace k = kiln;

namespace {

/// Central difference of `f` (a scalar) in element `i` of the variable `w`.
double central_difference(k::Variable& w, std::size_t i, const std::function<double()>& f, double eps = 1e-6) {
  auto base = w.value().to_vector<double>();
  auto at = [&](double delta) {
    auto moved = base;
    moved[i] += delta;
    w.assign(k::Tensor(moved, w.shape()));
    return f();
  };
  const double d = (at(eps) - at(-eps)) / (2 * eps);
  w.assign(k::Tensor(base, w.shape()));
  return d;
}

/// y = sum(w^3 x) when p > 0, else sum(w^2 x^2); both branches use w. Polynomials
/// keep float64 exact enough for central differences.
k::Tensor branchy(const k::Variable& w, const k::Tensor& x, const k::Tensor& p) {
  return k::cond(p > 0.0, [&] { return k::sum(w.value() * w.value() * w.value() * x); },
                 [&] { return k::sum(w.value() * w.value() * x * x); });
}

}  // namespace

TEST_CASE("cond gradient: a traced step with a tape is right for both predicate values over replays") {
  k::Variable w(k::Tensor({0.3, -1.2, 2.0}, k::float64), {.name = "w"});
  auto step = k::function(
      [&](const k::Tensor& x, const k::Tensor& p) {
        k::GradientTape tape;
        k::Tensor y = branchy(w, x, p);
        return std::vector<k::Tensor>{y, *tape.gradient(y, w)};
      },
      {.name = "cond_step"});
  const k::Tensor x({1.5, 0.5, -2.0}, k::float64);
  for (int i = 0; i < 6; ++i) {
    const double pv = i % 3 == 1 ? -1.0 : 1.0;
    const k::Tensor p(pv, k::float64);
    auto traced = step(x, p);
    // The eager gradient, and the analytic one: 3 w^2 x, or 2 w x^2.
    k::GradientTape tape;
    k::Tensor y = branchy(w, x, p);
    auto eager = tape.gradient(y, w)->to_vector<double>();
    auto wv = w.value().to_vector<double>(), xv = x.to_vector<double>();
    for (std::size_t j = 0; j < 3; ++j) {
      const double analytic = pv > 0 ? 3 * wv[j] * wv[j] * xv[j] : 2 * wv[j] * xv[j] * xv[j];
      CHECK(traced[1].to_vector<double>()[j] == doctest::Approx(analytic).epsilon(1e-12));
      CHECK(eager[j] == doctest::Approx(analytic).epsilon(1e-12));
      const double fd = central_difference(w, j, [&] { return step(x, p)[0].item<double>(); });
      CHECK(traced[1].to_vector<double>()[j] == doctest::Approx(fd).epsilon(1e-6));
    }
    CHECK(traced[0].item<double>() == doctest::Approx(y.item<double>()).epsilon(1e-12));
    w.assign_add(k::Tensor({0.1, 0.2, -0.1}, k::float64));  // a train step would move w
  }
  CHECK(step.tracing_count() == 1);
}

TEST_CASE("cond gradient: the branch not taken cannot poison the gradient with NaN") {
  // log(x) has no gradient for x < 0: a select over both branches would give NaN there.
  auto grad = k::function(
      [](const k::Tensor& x) {
        k::GradientTape tape;
        tape.watch(x);
        k::Tensor y = k::cond(x > 0.0, [&] { return k::log(x); }, [&] { return x * 2.0; });
        return std::vector<k::Tensor>{y, *tape.gradient(y, x)};
      },
      {.name = "log_or_double"});
  for (int i = 0; i < 2; ++i) {
    auto neg = grad(k::Tensor(-1.0, k::float64));
    CHECK(neg[0].item<double>() == -2.0);
    CHECK(neg[1].item<double>() == 2.0);
    auto pos = grad(k::Tensor(4.0, k::float64));
    CHECK(pos[0].item<double>() == doctest::Approx(std::log(4.0)));
    CHECK(pos[1].item<double>() == 0.25);
  }
  CHECK(grad.tracing_count() == 1);
}

TEST_CASE("cond gradient: captures one branch does not use get zeros from it, and the gradient trains") {
  k::Variable a(k::Tensor(2.0, k::float64), {.name = "a"}), b(k::Tensor(3.0, k::float64), {.name = "b"});
  auto step = k::function(
      [&](const k::Tensor& p) {
        k::GradientTape tape;
        k::Tensor y = k::cond(p > 0.0, [&] { return a.value() * a.value(); }, [&] { return b.value() * 5.0; });
        auto g = tape.gradient(y, std::vector<k::Variable>{a, b});
        a.assign_sub(*g[0] * 0.1);
        b.assign_sub(*g[1] * 0.1);
        return y;
      },
      {.name = "train"});
  CHECK(step(k::Tensor(1.0, k::float64)).item<double>() == 4.0);  // da = 4: a -> 1.6, b stays
  CHECK(a.value().item<double>() == doctest::Approx(1.6));
  CHECK(b.value().item<double>() == 3.0);
  CHECK(step(k::Tensor(-1.0, k::float64)).item<double>() == 15.0);  // db = 5: b -> 2.5, a stays
  CHECK(a.value().item<double>() == doctest::Approx(1.6));
  CHECK(b.value().item<double>() == doctest::Approx(2.5));
  CHECK(step(k::Tensor(1.0, k::float64)).item<double>() == doctest::Approx(2.56));
  CHECK(a.value().item<double>() == doctest::Approx(1.6 - 0.32));
  CHECK(step.tracing_count() == 1);
}

namespace {

/// n iterations of x <- x * w + 0.1 x^2, n a tensor; returns the final x.
k::Tensor iterate(const k::Variable& w, const k::Tensor& x0, const k::Tensor& n, k::WhileOptions o) {
  auto r = k::while_loop(
      [&](const std::vector<k::Tensor>& v) { return k::less(v[0], n); },
      [&](const std::vector<k::Tensor>& v) {
        return std::vector<k::Tensor>{v[0] + k::Tensor(1), v[1] * w.value() + v[1] * v[1] * 0.1};
      },
      {k::Tensor(0), x0}, o);
  return r[1];
}

void check_while_gradients(k::WhileOptions o, const std::vector<int>& counts) {
  k::Variable w(k::Tensor({0.7, -0.4}, k::float64), {.name = "w"});
  auto step = k::function(
      [&](const k::Tensor& x0, const k::Tensor& n) {
        k::GradientTape tape;
        tape.watch(x0);
        k::Tensor y = k::sum(iterate(w, x0, n, o) * k::Tensor({1.0, 2.0}, k::float64));
        auto g = tape.gradient(y, std::vector<k::Source>{w, x0}, k::UnconnectedGradients::Zero);
        return std::vector<k::Tensor>{y, *g[0], *g[1]};
      },
      {.name = "loop_step"});
  const k::Tensor x0({0.9, 1.3}, k::float64);
  for (int n : counts) {
    INFO("iterations ", n);
    auto traced = step(x0, k::Tensor(n));
    {
      k::GradientTape tape;
      tape.watch(x0);
      k::Tensor y = k::sum(iterate(w, x0, k::Tensor(n), o) * k::Tensor({1.0, 2.0}, k::float64));
      auto eager = tape.gradient(y, std::vector<k::Source>{w, x0}, k::UnconnectedGradients::Zero);
      CHECK(traced[0].item<double>() == doctest::Approx(y.item<double>()).epsilon(1e-12));
      kiln_test::check_values(traced[1], eager[0]->to_vector<double>(), 1e-10);
      kiln_test::check_values(traced[2], eager[1]->to_vector<double>(), 1e-10);
    }
    // Outside that tape the step replays its trace.
    for (std::size_t j = 0; j < 2; ++j) {
      const double fd = central_difference(w, j, [&] { return step(x0, k::Tensor(n))[0].item<double>(); });
      CHECK(traced[1].to_vector<double>()[j] == doctest::Approx(fd).epsilon(1e-6));
    }
    // With no iteration y = sum(x0 * c): the gradient is c for x0 and 0 for w.
    if (n == 0) {
      kiln_test::check_values(traced[1], {0.0, 0.0});
      kiln_test::check_values(traced[2], {1.0, 2.0});
    }
  }
  CHECK(step.tracing_count() == 1);
}

}  // namespace

TEST_CASE("while_loop gradient: traced with maximum_iterations, right for every iteration count over replays") {
  check_while_gradients({.maximum_iterations = 6}, {3, 0, 1, 6, 10, 2, 3});
}

TEST_CASE("while_loop gradient: without maximum_iterations the saved iterations grow as needed") {
  check_while_gradients({}, {2, 5, 0, 12, 4});
}

TEST_CASE("while_loop gradient: a cond inside the body, per-iteration branches differentiated right") {
  // Each iteration doubles x when it is below 1, else adds w: the branch changes across iterations.
  k::Variable w(k::Tensor(0.5, k::float64), {.name = "w"});
  auto body = [&](const std::vector<k::Tensor>& v) {
    k::Tensor x = v[1];
    k::Tensor next = k::cond(x < 1.0, [&] { return x * 2.0; }, [&] { return x + w.value() * w.value(); });
    return std::vector<k::Tensor>{v[0] + k::Tensor(1), next};
  };
  auto run = [&](const k::Tensor& x0) {
    auto r = k::while_loop([](const std::vector<k::Tensor>& v) { return k::less(v[0], k::Tensor(4)); }, body,
                           {k::Tensor(0), x0}, {.maximum_iterations = 4});
    return r[1];
  };
  auto step = k::function(
      [&](const k::Tensor& x0) {
        k::GradientTape tape;
        tape.watch(x0);
        k::Tensor y = run(x0);
        auto g = tape.gradient(y, std::vector<k::Source>{w, x0});
        return std::vector<k::Tensor>{y, *g[0], *g[1]};
      },
      {.name = "loop_cond"});
  // x0 = 0.3: 0.6, 1.2, 1.45, 1.7 -> dy/dw = 2 iterations * 2w = 2, dy/dx0 = 4.
  // x0 = 2: 2.25, 2.5, 2.75, 3 -> dy/dw = 4 * 2w = 4, dy/dx0 = 1.
  for (int i = 0; i < 2; ++i) {
    auto a = step(k::Tensor(0.3, k::float64));
    CHECK(a[0].item<double>() == doctest::Approx(1.7));
    CHECK(a[1].item<double>() == doctest::Approx(2.0));
    CHECK(a[2].item<double>() == doctest::Approx(4.0));
    auto b = step(k::Tensor(2.0, k::float64));
    CHECK(b[0].item<double>() == doctest::Approx(3.0));
    CHECK(b[1].item<double>() == doctest::Approx(4.0));
    CHECK(b[2].item<double>() == doctest::Approx(1.0));
  }
  CHECK(step.tracing_count() == 1);
}

TEST_CASE("cond gradient: a higher-order gradient through a traced cond is refused, not wrong") {
  auto f = k::function(
      [](const k::Tensor& x) {
        k::GradientTape outer;
        outer.watch(x);
        k::GradientTape inner;
        inner.watch(x);
        k::Tensor y = k::cond(x > 0.0, [&] { return x * x * x; }, [&] { return x * x; });
        k::Tensor g = *inner.gradient(y, x);
        return *outer.gradient(g, x);
      },
      {.name = "second_order"});
  const std::string m = kiln_test::message_of<k::RuntimeError>([&] { f(k::Tensor(2.0, k::float64)); });
  CHECK_HAS(m, "higher-order gradient");
  // Eagerly it is C++ control flow: d2(x^3)/dx2 = 6 x.
  k::config::run_functions_eagerly(true);
  CHECK(f(k::Tensor(2.0, k::float64)).item<double>() == 12.0);
  k::config::run_functions_eagerly(false);
}

TEST_CASE("while_loop gradient: the body's assign_add runs once per iteration, not again for the gradient") {
  k::Variable steps(k::Tensor(0.0, k::float64), {.name = "steps", .trainable = false});
  k::Variable w(k::Tensor(1.5, k::float64), {.name = "w"});
  auto f = k::function(
      [&](const k::Tensor& x, const k::Tensor& n) {
        k::GradientTape tape;
        tape.watch(x);
        k::Tensor y = k::while_loop([&](const std::vector<k::Tensor>& v) { return k::less(v[0], n); },
                                    [&](const std::vector<k::Tensor>& v) {
                                      steps.assign_add(k::Tensor(1.0, k::float64));
                                      return std::vector<k::Tensor>{v[0] + k::Tensor(1), v[1] * w.value()};
                                    },
                                    {k::Tensor(0), x}, {.maximum_iterations = 10})[1];
        return std::vector<k::Tensor>{y, *tape.gradient(y, x)};
      },
      {.name = "counted"});
  // y = x w^n, dy/dx = w^n.
  auto a = f(k::Tensor(2.0, k::float64), k::Tensor(3));
  CHECK(a[0].item<double>() == doctest::Approx(2 * 3.375));
  CHECK(a[1].item<double>() == doctest::Approx(3.375));
  CHECK(steps.value().item<double>() == 3.0);
  auto b = f(k::Tensor(2.0, k::float64), k::Tensor(2));
  CHECK(b[1].item<double>() == doctest::Approx(2.25));
  CHECK(steps.value().item<double>() == 5.0);
  CHECK(f.tracing_count() == 1);
}
