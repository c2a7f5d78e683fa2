// CUDA Graphs under traced functions: a captured replay computes what the
// uncaptured one does, sees variables change between calls, is captured anew
// when a buffer it used moves, and compiled fit on the GPU trains the same
// weights with graphs as without.
#include <doctest/doctest.h>

#include <kiln/kiln.h>

#include <string>
#include <vector>

#include "gpu_test_util.h"

namespace k = kiln;
namespace L = kiln::layers;
using k::Tensor;
using namespace kiln::cudatest;

namespace {

/// Turns CUDA Graphs on or off for one scope.
struct GraphsSwitch {
  explicit GraphsSwitch(bool on) : was(k::cuda::graphs_enabled()) { k::cuda::set_graphs(on); }
  ~GraphsSwitch() { k::cuda::set_graphs(was); }
  bool was;
};

k::cuda::GraphStats since(const k::cuda::GraphStats& before) {
  const auto now = k::cuda::graph_stats();
  return {now.captures - before.captures, now.launches - before.launches, now.failures - before.failures};
}

}  // namespace

TEST_CASE("CUDA Graphs: a captured function matches eager, reads variables live and recaptures moved buffers") {
  KILN_REQUIRE_REAL_GPU("CUDA Graph capture");
  GraphsSwitch on(true);
  k::Variable w(k::Tensor({{0.5f, -1.f, 0.3f}, {2.f, 0.25f, -0.7f}}).to(gpu()), {.name = "w"});
  k::Variable total(k::zeros({4, 3}, k::float32).to(gpu()), {.name = "total"});
  auto body = [&](const Tensor& x) {
    Tensor y = k::tanh(k::matmul(x, w.value())) * 2.f + k::relu(x[{k::Slice(), k::Slice(0, 1)}]);
    total.assign_add(y);  // a write in place, part of the graph
    return k::sum(y, {1});
  };
  auto f = k::function(body, {.name = "captured"});
  const auto before = k::cuda::graph_stats();
  Tensor want_total = k::zeros({4, 3}, k::float32);
  Tensor snapshot, kept;
  for (uint64_t call = 1; call <= 6; ++call) {
    INFO("call ", call);
    const Tensor x = k::random::normal({4, 2}, 0.f, 1.f, k::float32, call).to(gpu());
    const Tensor xc = x.to(k::Device::cpu());
    const Tensor want_y = k::tanh(k::matmul(xc, w.value().to(k::Device::cpu()))) * 2.f +
                          k::relu(xc[{k::Slice(), k::Slice(0, 1)}]);
    want_total = want_total + want_y;
    check_close("f(x)", k::sum(want_y, {1}), f(x).to(k::Device::cpu()), kF32);
    check_close("total", want_total, total.value().to(k::Device::cpu()), kF32);
    if (call == 5) check_close("the snapshot keeps its values", kept, snapshot.to(k::Device::cpu()), {0, 0});
    // Between calls the variable changes in place, which the graph must see.
    w.assign_add(k::Tensor({{0.1f, 0.f, -0.1f}, {0.f, 0.2f, 0.f}}).to(gpu()));
    if (call == 4) {
      // A snapshot shares total's buffer, so the next replay first moves
      // total to a copy (the snapshot keeps its values) and must capture again.
      snapshot = total.value();
      kept = snapshot.to(k::Device::cpu());
    }
  }
  CHECK(f.tracing_count() == 1);
  const auto d = since(before);
  MESSAGE("captures ", d.captures, ", launches ", d.launches, ", failures ", d.failures);
  CHECK(d.failures == 0);
  CHECK(d.captures >= 2);  // the first capture and the one after the buffer moved
  CHECK(d.launches >= 4);
}

namespace {

std::shared_ptr<k::Sequential> graph_model() {
  k::random::set_seed(5);
  return std::make_shared<k::Sequential>(std::vector<std::shared_ptr<k::Layer>>{
      L::Input({8, 8, 1}),
      L::Conv2D(6, 3, {.activation = "relu"}),
      L::MaxPooling2D(2),
      L::Flatten(),
      L::Dropout(0.2),
      L::Dense(16, {.activation = "relu"}),
      L::BatchNormalization(),
      L::Dense(3),
  });
}

struct Trained {
  std::vector<double> loss;
  std::vector<Tensor> weights;
  std::vector<float> evaluated;
  Tensor predicted;
};

Trained train(bool graphs, const std::string& optimizer) {
  GraphsSwitch sw(graphs);
  auto model = graph_model();
  model->to(gpu());
  k::OptimizerArg opt = k::optimizers::RMSprop({.learning_rate = 0.005});
  if (optimizer == "adam") opt = k::optimizers::Adam({.learning_rate = 0.01});
  if (optimizer == "sgd") opt = k::optimizers::SGD({.learning_rate = 0.05, .momentum = 0.9});
  model->compile({.optimizer = opt,
                  .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                  .metrics = {"accuracy"},
                  .jit_compile = true});
  Tensor x = k::random::normal({80, 8, 8, 1}, 0, 1, k::float32, 3);
  Tensor y = k::cast(k::argmax(k::reshape(k::sum(x, {1}), {80, 8})[{k::Slice(), k::Slice(0, 3)}], -1), k::int64);
  k::random::set_seed(17);  // the dropout masks: the same draws with and without graphs
  auto h = model->fit(x, y, {.batch_size = 16, .epochs = 4, .verbose = 0, .shuffle = false});
  Trained t;
  t.loss = h.history.at("loss");
  for (const auto& w : model->get_weights()) t.weights.push_back(w.to(k::Device::cpu()));
  t.evaluated = model->evaluate(x, y, {.batch_size = 16, .verbose = 0});
  t.predicted = model->predict(x, {.batch_size = 16}).to(k::Device::cpu());
  return t;
}

}  // namespace

TEST_CASE("CUDA Graphs: compiled fit, evaluate and predict train the same weights with graphs as without") {
  KILN_REQUIRE_REAL_GPU("CUDA Graphs in compiled fit");
  for (const std::string optimizer : {"adam", "sgd", "rmsprop"}) {
    INFO("optimizer ", optimizer);
    const Trained plain = train(false, optimizer);
    const auto before = k::cuda::graph_stats();
    const Trained captured = train(true, optimizer);
    const auto d = since(before);
    MESSAGE(optimizer, ": captures ", d.captures, ", launches ", d.launches, ", failures ", d.failures);
    CHECK(d.failures == 0);
    CHECK(d.captures >= 3);   // train, test and predict steps
    CHECK(d.launches >= 20);  // 4 epochs of 5 steps, less the warm-up replays
    REQUIRE(captured.loss.size() == plain.loss.size());
    for (std::size_t e = 0; e < plain.loss.size(); ++e)
      CHECK(captured.loss[e] == doctest::Approx(plain.loss[e]).epsilon(1e-4));
    CHECK(captured.loss.back() < captured.loss.front());
    REQUIRE(captured.weights.size() == plain.weights.size());
    for (std::size_t i = 0; i < plain.weights.size(); ++i)
      check_close("weight " + std::to_string(i), plain.weights[i], captured.weights[i], {1e-4, 1e-5});
    REQUIRE(captured.evaluated.size() == plain.evaluated.size());
    for (std::size_t i = 0; i < plain.evaluated.size(); ++i)
      CHECK(captured.evaluated[i] == doctest::Approx(plain.evaluated[i]).epsilon(1e-4));
    check_close("predict", plain.predicted, captured.predicted, {1e-4, 1e-5});
  }
}

TEST_CASE("CUDA Graphs: the switch and the counters exist on every machine") {
  const bool was = k::cuda::graphs_enabled();
  k::cuda::set_graphs(!was);
  CHECK(k::cuda::graphs_enabled() == !was);
  k::cuda::set_graphs(was);
  const auto s = k::cuda::graph_stats();
  CHECK(s.captures >= 0);
  CHECK(s.failures >= 0);
  if (!k::cuda::is_available() || emulated()) {
    // Nothing can be captured here: traced functions replay kernel by kernel.
    auto f = k::function([](const Tensor& x) { return k::exp(x) * 2.f + 1.f; });
    for (int i = 0; i < 3; ++i) (void)f(k::ones({3}));
    CHECK(k::cuda::graph_stats().captures == s.captures);
  }
}
