// kiln::cond and kiln::while_loop: eagerly and as If / While nodes of a
// kiln::function's graph (the guide's simple_relu, tf.while_loop's examples),
// side effects only in the branch taken, errors, and gradients through both
// inside a traced function that holds a GradientTape, against the eager ones
// and central differences, for both predicate values and several iteration counts.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_util.h"

namespace k = kiln;

namespace {

k::Tensor simple_relu(const k::Tensor& x) {
  return k::cond(k::greater(x, k::Tensor(0)), [&] { return x; }, [&] { return k::zeros_like(x); });
}

bool has_op(const k::ConcreteFunction& cf, const std::string& type) {
  for (const auto& op : cf.operations())
    if (op.type == type) return true;
  return false;
}

}  // namespace

TEST_CASE("cond: the guide's simple_relu gives 1 for 1 and 0 for -1, eagerly and traced once") {
  CHECK(simple_relu(k::Tensor(1)).item<int32_t>() == 1);
  CHECK(simple_relu(k::Tensor(-1)).item<int32_t>() == 0);
  auto tf_simple_relu = k::function(simple_relu, {.name = "simple_relu"});
  for (int i = 0; i < 3; ++i) {
    CHECK(tf_simple_relu(k::Tensor(1)).item<int32_t>() == 1);   // First branch, with graph: 1
    CHECK(tf_simple_relu(k::Tensor(-1)).item<int32_t>() == 0);  // Second branch, with graph: 0
    CHECK(tf_simple_relu(k::Tensor(7)).item<int32_t>() == 7);
  }
  CHECK(tf_simple_relu.tracing_count() == 1);
}

TEST_CASE("cond: get_concrete_function traces without running and shows one If op") {
  k::Variable v(k::Tensor(0.f), {.name = "counter"});
  auto f = k::function(
      [&](const k::Tensor& x) {
        return k::cond(x > 0.0, [&] { v.assign_add(x); return v.value(); }, [&] { return x * 2.0; });
      },
      {.name = "count_positive"});
  auto cf = f.get_concrete_function(k::Tensor(5.f));
  CHECK(has_op(cf, "If"));
  CHECK(cf.to_string().find("If") != std::string::npos);
  CHECK(v.value().item<float>() == 0.f);  // the dry trace assigned nothing
  CHECK(f(k::Tensor(5.f)).item<float>() == 5.f);  // replays the described trace
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("cond: traced equals eager for both branches over many replays, with several outputs") {
  auto body = [](const k::Tensor& x, const k::Tensor& p) {
    return k::cond(
        p > 0.0, [&] { return std::vector<k::Tensor>{k::sin(x) * 2.0, k::sum(x)}; },
        [&] { return std::vector<k::Tensor>{x * x - 1.0, k::sum(x) * -1.0}; });
  };
  auto f = k::function(body, {.name = "branches"});
  for (int i = 0; i < 12; ++i) {
    k::Tensor x({0.5 * i, -0.25 * i, 1.0});
    k::Tensor p((i * 7) % 3 == 0 ? 1.0 : -1.0);
    auto traced = f(x, p);
    auto eager = body(x, p);
    REQUIRE(traced.size() == 2);
    kiln_test::check_values(traced[0], eager[0].to_vector<double>(), 1e-12);
    kiln_test::check_values(traced[1], eager[1].to_vector<double>(), 1e-12);
  }
  auto r = f(k::Tensor({1.0, 2.0, 3.0}), k::Tensor(-1.0));
  kiln_test::check_values(r[0], {0.0, 3.0, 8.0});
  kiln_test::check_values(r[1], {-6.0});
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("cond: a branch's assign_add changes the variable only when the branch is taken") {
  k::Variable v(k::Tensor(0.f), {.name = "v"});
  auto f = k::function(
      [&](const k::Tensor& x) {
        return k::cond(x > 0.0, [&] { v.assign_add(x); return v.value() * 1.f; },
                       [&] { v.assign_sub(k::Tensor(100.f)); return v.value() * 0.f; });
      },
      {.name = "maybe_add"});
  // Each call takes one branch; the other's assignment never runs.
  CHECK(f(k::Tensor(1.f)).item<float>() == 1.f);
  CHECK(v.value().item<float>() == 1.f);
  CHECK(f(k::Tensor(2.f)).item<float>() == 3.f);
  CHECK(f(k::Tensor(-1.f)).item<float>() == 0.f);
  CHECK(v.value().item<float>() == -97.f);
  CHECK(f(k::Tensor(4.f)).item<float>() == -93.f);
  CHECK(v.value().item<float>() == -93.f);
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("cond: nested conds pick the right leaf on every replay") {
  auto sign_class = [](const k::Tensor& x) {
    return k::cond(
        x > 0.0, [&] { return k::cond(x > 10.0, [&] { return x * 0.0 + 2.0; }, [&] { return x * 0.0 + 1.0; }); },
        [&] { return x * 0.0 - 1.0; });
  };
  auto f = k::function(sign_class, {.name = "sign_class"});
  const std::vector<std::pair<double, double>> cases = {{5, 1}, {-3, -1}, {20, 2}, {0, -1}, {11, 2}, {1, 1}};
  for (const auto& [x, want] : cases) {
    CHECK(f(k::Tensor(x)).item<double>() == want);
    CHECK(sign_class(k::Tensor(x)).item<double>() == want);
  }
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("cond: errors name cond, the predicate's shape and both branches' outputs") {
  const std::string shape_err = kiln_test::message_of<k::ValueError>(
      [] { k::cond(k::Tensor({true, false}), [] { return k::Tensor(1.f); }, [] { return k::Tensor(0.f); }); });
  CHECK_HAS(shape_err, "kiln::cond");
  CHECK_HAS(shape_err, "(2,)");
  auto f = k::function(
      [](const k::Tensor& x) {
        return k::cond(x > 0.0, [&] { return k::Tensor({1.0, 2.0}); }, [&] { return k::Tensor(1.f); });
      },
      {.name = "mismatch"});
  const std::string err = kiln_test::message_of<k::ValueError>([&] { f(k::Tensor(1.0)); });
  CHECK_HAS(err, "kiln::cond: true_fn and false_fn must have the same number, type, and overall structure");
  CHECK_HAS(err, "true_fn output: [TensorSpec(shape=(2,), dtype=float32, name=None)]");
  CHECK_HAS(err, "false_fn output: [TensorSpec(shape=(), dtype=float32, name=None)]");
  // The value-read error points at these names.
  auto g = k::function([](const k::Tensor& x) { return x.item<float>() > 0 ? x : -x; }, {.name = "reads"});
  const std::string read = kiln_test::message_of<k::TracingError>([&] { g(k::Tensor(1.f)); });
  CHECK_HAS(read, "kiln::cond");
  CHECK_HAS(read, "kiln::while_loop");
}

TEST_CASE("while_loop: tf.while_loop's examples eagerly and traced") {
  // i = 0; while i < 10: i += 1  ->  10
  auto c = [](const std::vector<k::Tensor>& v) { return k::less(v[0], k::Tensor(10)); };
  auto b = [](const std::vector<k::Tensor>& v) { return std::vector<k::Tensor>{v[0] + k::Tensor(1)}; };
  CHECK(k::while_loop(c, b, {k::Tensor(0)})[0].item<int32_t>() == 10);
  CHECK(k::while_loop(c, b, {k::Tensor(0)}, {.maximum_iterations = 4})[0].item<int32_t>() == 4);
  // The sum of 0..n-1, the loop bound a function argument.
  auto sum_below = k::function(
      [](const k::Tensor& n) {
        return k::while_loop([&](const std::vector<k::Tensor>& v) { return k::less(v[0], n); },
                             [](const std::vector<k::Tensor>& v) {
                               return std::vector<k::Tensor>{v[0] + k::Tensor(1), v[1] + v[0]};
                             },
                             {k::Tensor(0), k::Tensor(0)});
      },
      {.name = "sum_below"});
  for (int n : {10, 3, 0, 1, 100, 10}) {
    auto r = sum_below(k::Tensor(n));
    CHECK(r[0].item<int32_t>() == n);
    CHECK(r[1].item<int32_t>() == n * (n - 1) / 2);
  }
  CHECK(sum_below.tracing_count() == 1);
}

TEST_CASE("while_loop: maximum_iterations, swapped loop variables and a vector state, traced on every replay") {
  auto f = k::function(
      [](const k::Tensor& n, const k::Tensor& a, const k::Tensor& b) {
        return k::while_loop([&](const std::vector<k::Tensor>& v) { return k::less(v[0], n); },
                             [](const std::vector<k::Tensor>& v) {
                               return std::vector<k::Tensor>{v[0] + k::Tensor(1), v[2], v[1]};  // swap
                             },
                             {k::Tensor(0), a, b}, {.maximum_iterations = 5});
      },
      {.name = "swap"});
  k::Tensor a({1.f, 2.f}), b({3.f, 4.f});
  for (int n : {3, 2, 9, 0}) {
    auto r = f(k::Tensor(n), a, b);
    const int done = std::min(n, 5);
    CHECK(r[0].item<int32_t>() == done);
    CHECK(r[1].to_vector<float>() == (done % 2 ? b : a).to_vector<float>());
    CHECK(r[2].to_vector<float>() == (done % 2 ? a : b).to_vector<float>());
  }
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("while_loop: a body that changes a loop variable's shape or dtype is a ValueError") {
  auto c = [](const std::vector<k::Tensor>& v) { return k::less(k::sum(v[0]), k::Tensor(10.f)); };
  auto grow = [](const std::vector<k::Tensor>& v) { return std::vector<k::Tensor>{k::concat({v[0], v[0]}, 0)}; };
  const std::string eager = kiln_test::message_of<k::ValueError>([&] { k::while_loop(c, grow, {k::Tensor({1.f})}); });
  CHECK_HAS(eager, "kiln::while_loop: loop variable 0 enters the loop with shape (1,) and dtype float32, but has "
                   "shape (2,) and dtype float32 after one iteration");
  auto f = k::function([&](const k::Tensor& x) { return k::while_loop(c, grow, {x}); }, {.name = "grow"});
  CHECK_HAS(kiln_test::message_of<k::ValueError>([&] { f(k::Tensor({1.f})); }), "loop variable 0 enters the loop");
  const std::string pred = kiln_test::message_of<k::ValueError>([] {
    k::while_loop([](const std::vector<k::Tensor>& v) { return v[0] > 0.f; },
                  [](const std::vector<k::Tensor>& v) { return v; }, {k::Tensor({1.f, 2.f})});
  });
  CHECK_HAS(pred, "kiln::while_loop");
  CHECK_HAS(pred, "(2,)");
}

TEST_CASE("cond and while_loop: run_functions_eagerly and an outer tape run them as C++ control flow") {
  int traced_true = 0;
  auto f = k::function(
      [&](const k::Tensor& x) {
        k::Tensor y = k::cond(x > 0.0, [&] { ++traced_true; return x * x; }, [&] { return x * -3.0; });
        return k::while_loop([](const std::vector<k::Tensor>& v) { return k::less(v[0], k::Tensor(3)); },
                             [](const std::vector<k::Tensor>& v) {
                               return std::vector<k::Tensor>{v[0] + k::Tensor(1), v[1] * 2.0};
                             },
                             {k::Tensor(0), y})[1];
      },
      {.name = "eager_or_not"});
  CHECK(f(k::Tensor(2.0, k::float64)).item<double>() == 32.0);  // traced: both branches traced once
  CHECK(traced_true == 1);
  k::config::run_functions_eagerly(true);
  CHECK(f(k::Tensor(-1.0, k::float64)).item<double>() == 24.0);
  CHECK(traced_true == 1);  // only the false branch ran
  CHECK(f(k::Tensor(3.0, k::float64)).item<double>() == 72.0);
  CHECK(traced_true == 2);
  k::config::run_functions_eagerly(false);
  // Under a recording outer tape: a while_loop without maximum_iterations has no gradient in a graph,
  // so the body runs eagerly and the tape sees the ops that ran: d(8 x^2)/dx = 16 x, each call.
  for (double xv : {3.0, 2.0}) {
    k::Tensor x(xv, k::float64);
    k::GradientTape tape;
    tape.watch(x);
    k::Tensor y = f(x);
    CHECK(tape.gradient(y, x)->item<double>() == 16 * xv);
  }
  CHECK(f.tracing_count() == 1);
}

TEST_CASE("cond and while_loop: a dry trace of a train step shows If and While ops and changes nothing") {
  k::Variable w(k::Tensor(2.0, k::float64), {.name = "w"});
  auto step = k::function(
      [&](const k::Tensor& x) {
        k::GradientTape tape;
        k::Tensor y = k::cond(x > 0.0, [&] { return w.value() * x; }, [&] { return w.value() * w.value(); });
        k::Tensor z = k::while_loop([](const std::vector<k::Tensor>& v) { return v[0] < 10.0; },
                                    [&](const std::vector<k::Tensor>& v) { return std::vector<k::Tensor>{v[0] * w.value()}; },
                                    {y}, {.maximum_iterations = 8})[0];
        w.assign_sub(*tape.gradient(z, w) * 0.01);
        return z;
      },
      {.name = "train_step"});
  auto cf = step.get_concrete_function(k::Tensor(1.0, k::float64));
  int ifs = 0, whiles = 0;
  for (const auto& op : cf.operations()) {
    ifs += op.type == "If";
    whiles += op.type == "While";
  }
  CHECK(ifs == 2);     // the forward If and its gradient
  CHECK(whiles == 2);  // the forward While and its gradient
  CHECK(w.value().item<double>() == 2.0);
  // x = 1: y = w x = 2, then 4, 8, 16 (3 iterations): z = w^4 x = 16, dz/dw = 4 w^3 x = 32.
  CHECK(step(k::Tensor(1.0, k::float64)).item<double>() == 16.0);
  CHECK(w.value().item<double>() == doctest::Approx(2.0 - 0.32));
  CHECK(step.tracing_count() == 1);
}

TEST_CASE("while_loop: nested loops traced; a gradient through a nested loop is refused") {
  // sum over i < n of (sum over j < i of 1) = n (n - 1) / 2, an inner loop per outer iteration.
  auto inner = [](const k::Tensor& i, const k::Tensor& acc) {
    return k::while_loop([&](const std::vector<k::Tensor>& v) { return k::less(v[0], i); },
                         [](const std::vector<k::Tensor>& v) {
                           return std::vector<k::Tensor>{v[0] + k::Tensor(1), v[1] + 1.0};
                         },
                         {k::Tensor(0), acc})[1];
  };
  auto triangle = [&](const k::Tensor& n) {
    return k::while_loop([&](const std::vector<k::Tensor>& v) { return k::less(v[0], n); },
                         [&](const std::vector<k::Tensor>& v) {
                           return std::vector<k::Tensor>{v[0] + k::Tensor(1), inner(v[0], v[1])};
                         },
                         {k::Tensor(0), k::Tensor(0.0, k::float64)})[1];
  };
  auto f = k::function(triangle, {.name = "triangle"});
  for (int n : {4, 1, 7, 0}) {
    CHECK(f(k::Tensor(n)).item<double>() == n * (n - 1) / 2.0);
    CHECK(triangle(k::Tensor(n)).item<double>() == n * (n - 1) / 2.0);
  }
  CHECK(f.tracing_count() == 1);
  auto g = k::function(
      [&](const k::Tensor& x) {
        k::GradientTape tape;
        tape.watch(x);
        k::Tensor y = inner(k::Tensor(2), x) * x;
        return *tape.gradient(y, x);  // one loop: fine, d((x + 2) x)/dx = 2 x + 2
      },
      {.name = "one_loop"});
  CHECK(g(k::Tensor(3.0, k::float64)).item<double>() == 8.0);
  auto h = k::function(
      [&](const k::Tensor& x) {
        k::GradientTape tape;
        tape.watch(x);
        k::Tensor y = k::while_loop([](const std::vector<k::Tensor>& v) { return k::less(v[0], k::Tensor(2)); },
                                    [&](const std::vector<k::Tensor>& v) {
                                      return std::vector<k::Tensor>{v[0] + k::Tensor(1), inner(k::Tensor(2), v[1])};
                                    },
                                    {k::Tensor(0), x})[1];
        return *tape.gradient(y, x);
      },
      {.name = "nested"});
  CHECK_HAS(kiln_test::message_of<k::RuntimeError>([&] { h(k::Tensor(1.0, k::float64)); }),
            "nested in another while_loop's body is not supported");
}
