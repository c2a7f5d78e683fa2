// A kiln::function called under an outer GradientTape: the traced graph
// replays (the body does not run again) and the tape differentiates the call
// as one op, with the values eager execution gives. Where a replay could give
// other gradients (a persistent tape, a second call before the first's
// gradient) the body runs eagerly, as TensorFlow's would run the ops.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <vector>

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_function_tape {

namespace k = kiln;

namespace {

void check_close(const k::Tensor& got, const k::Tensor& want) {
  const auto g = got.to_vector<float>(), w = want.to_vector<float>();
  REQUIRE(g.size() == w.size());
  for (std::size_t i = 0; i < g.size(); ++i) CHECK(g[i] == doctest::Approx(w[i]).epsilon(1e-6));
}

}  // namespace

TEST_CASE("function under a tape: the graph replays and the tape differentiates it, arguments and variables") {
  int traced = 0;
  k::Variable w(k::Tensor({{0.5f, -1.f, 0.3f}, {2.f, 0.25f, -0.7f}}), {.name = "w"});
  auto layer = [&](const k::Tensor& x) { return k::tanh(k::matmul(x, w.value())) * k::sum(x); };
  auto f = k::function([&](const k::Tensor& x) {
    ++traced;
    return layer(x);
  }, {.name = "layer"});
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const k::Tensor x = k::random::normal({4, 2}, 0.f, 1.f, k::float32, seed);
    k::GradientTape traced_tape;
    traced_tape.watch(x);
    const k::Tensor y = f(x);
    const auto got = traced_tape.gradient(k::sum(k::square(y)), std::vector<k::Source>{x, w});
    k::GradientTape eager_tape;
    eager_tape.watch(x);
    const k::Tensor want_y = layer(x);
    const auto want = eager_tape.gradient(k::sum(k::square(want_y)), std::vector<k::Source>{x, w});
    check_close(y, want_y);
    check_close(*got[0], *want[0]);
    check_close(*got[1], *want[1]);
    w.assign_add(k::Tensor({{0.1f, 0.f, -0.1f}, {0.f, 0.2f, 0.f}}));  // replays read the variable's new value
  }
  CHECK(traced == 1);
  CHECK(f.tracing_count() == 1);

  const k::Tensor x = k::random::normal({4, 2}, 0.f, 1.f, k::float32, 9);
  SUBCASE("a call outside any tape traces the plain graph") {
    check_close(f(x), layer(x));
    CHECK(traced == 2);
    CHECK(f.tracing_count() == 2);
  }
  SUBCASE("under a persistent tape the body runs, and gradients can be asked for twice") {
    k::GradientTape tape({.persistent = true});
    tape.watch(x);
    const k::Tensor loss = k::sum(f(x));
    CHECK(traced == 2);
    const auto once = tape.gradient(loss, x), twice = tape.gradient(loss, x);
    check_close(*once, *twice);
  }
  SUBCASE("a second call before the first's gradient runs eagerly; the gradient sums both") {
    k::GradientTape tape;
    tape.watch(x);
    const k::Tensor loss = k::sum(f(x)) + k::sum(f(x * 2.f));
    CHECK(traced == 2);  // the first call replayed, the second ran the body
    k::GradientTape eager;
    eager.watch(x);
    const k::Tensor want = k::sum(layer(x)) + k::sum(layer(x * 2.f));
    check_close(*tape.gradient(loss, x), *eager.gradient(want, x));
  }
}

TEST_CASE("function under a tape: a dropout's gradient uses the mask its forward replay drew") {
  auto f = k::function([](const k::Tensor& x) { return k::dropout(x, 0.5) * 3.f; }, {.name = "drop"});
  const k::Tensor x = k::ones({1000});
  std::vector<float> first;
  for (int call = 0; call < 3; ++call) {
    k::GradientTape tape;
    tape.watch(x);
    const k::Tensor y = f(x);
    const auto g = tape.gradient(k::sum(y), x)->to_vector<float>();
    const auto yv = y.to_vector<float>();
    int kept = 0;
    for (std::size_t i = 0; i < yv.size(); ++i) {
      REQUIRE(g[i] == (yv[i] != 0.f ? 6.f : 0.f));  // d(x * mask * 2 * 3)/dx
      kept += yv[i] != 0.f;
    }
    CHECK(kept > 400);
    CHECK(kept < 600);
    if (call == 0) first = yv;
    else CHECK(yv != first);  // each replay draws a new mask
  }
  CHECK(f.tracing_count() == 1);
}

}  // namespace test_function_tape
