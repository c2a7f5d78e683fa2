// fit with the compiled train step when a layer's call holds kiln::cond and
// kiln::while_loop on batch values: the traced step, gradients through the
// If / While included, trains to the same losses and weights as eager fit,
// while the branch taken and the iteration count change from batch to batch.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <algorithm>
#include <cmath>
#include <vector>

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_compiled_control_flow {

namespace k = kiln;
namespace L = kiln::layers;

namespace {

int g_false_branch_runs = 0;

/// tanh when the batch mean is positive, else 2 x.
k::Tensor mean_gate(const k::Tensor& x) {
  return k::cond(k::mean(x) > 0.f, [&] { return k::tanh(x); }, [&] { ++g_false_branch_runs; return x * 2.f; });
}

/// Halves x until its mean square is below 0.25, at most 4 times.
k::Tensor shrink(const k::Tensor& x) {
  return k::while_loop([](const std::vector<k::Tensor>& v) { return k::mean(k::square(v[0])) > 0.25f; },
                       [](const std::vector<k::Tensor>& v) { return std::vector<k::Tensor>{v[0] * 0.5f}; },
                       {x}, {.maximum_iterations = 4})[0];
}

struct Run {
  std::vector<double> loss;
  std::vector<float> weights;
};

Run fit_once(bool jit, const k::Tensor& x, const k::Tensor& y) {
  k::clear_session();
  k::random::set_seed(11);
  auto model = std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{
      L::Input({4}), L::Dense(6), L::Lambda(mean_gate, {.output_shape = k::Shape({6})}), L::Dense(5),
      L::Lambda(shrink, {.output_shape = k::Shape({5})}), L::Dense(1)});
  model->compile({.optimizer = "adam", .loss = "mse", .jit_compile = jit});
  auto h = model->fit(x, y, {.batch_size = 4, .epochs = 3, .verbose = 0, .shuffle = false});
  Run r{h["loss"], {}};
  for (const auto& w : model->weights()) {
    auto v = w.value().to_vector<float>();
    r.weights.insert(r.weights.end(), v.begin(), v.end());
  }
  return r;
}

}  // namespace

TEST_CASE("compiled fit: layers with cond and while_loop on batch values train as eagerly") {
  // Batches whose means differ in sign and scale, so both branches and several iteration counts occur.
  const k::Tensor shifts = k::Tensor({3.f, -3.f, 1.f, -1.f, 0.5f, -4.f}).reshape({6, 1, 1});
  k::Tensor x = k::random::normal({24, 4}, 0, 2, k::DType::float32, 9) +
                k::reshape(k::broadcast_to(shifts, {6, 4, 4}), {24, 4});
  k::Tensor y = k::random::normal({24, 1}, 0, 1, k::DType::float32, 10);
  g_false_branch_runs = 0;
  const Run eager = fit_once(false, x, y);
  const int eager_runs = g_false_branch_runs;
  g_false_branch_runs = 0;
  const Run compiled = fit_once(true, x, y);
  // Eagerly the C++ branch runs for each negative batch; compiled, it is traced once and replayed.
  CHECK(eager_runs >= 6);
  CHECK(g_false_branch_runs <= 2);
  REQUIRE(eager.loss.size() == compiled.loss.size());
  for (std::size_t i = 0; i < eager.loss.size(); ++i)
    CHECK(compiled.loss[i] == doctest::Approx(eager.loss[i]).epsilon(1e-5));
  REQUIRE(eager.weights.size() == compiled.weights.size());
  double worst = 0;
  for (std::size_t i = 0; i < eager.weights.size(); ++i)
    worst = std::max(worst, static_cast<double>(std::abs(eager.weights[i] - compiled.weights[i])));
  CHECK(worst <= 1e-5);
  CHECK(eager.loss.back() < eager.loss.front());
}

}  // namespace test_compiled_control_flow
