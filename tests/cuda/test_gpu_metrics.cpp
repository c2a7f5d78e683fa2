// Metrics on the GPU: every metric that says it runs on the device gives
// there what it gives on the CPU, and a GPU model keeps its compiled metrics
// on the GPU when all of them can run there (and on the host otherwise),
// with the same history either way.
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

/// The result of `name` updated twice with `inputs` (y_true, y_pred, sample_weight) on `device`.
Tensor run_metric(const std::string& name, const std::vector<Tensor>& inputs, k::Device device) {
  const k::DeviceScope scope(device);
  auto m = k::metrics::get(name);
  for (int i = 0; i < 2; ++i) m->update_state(inputs[0].to(device), inputs[1].to(device), inputs[2].to(device));
  for (const auto& v : m->variables()) CHECK(v.device() == device);
  return m->result().to(k::Device::cpu());
}

}  // namespace

TEST_CASE("every metric that runs on the device matches the CPU there") {
  KILN_REQUIRE_GPU("metrics on the GPU");
  const Tensor probs = k::softmax(k::random::normal({8, 3}, 0, 1, k::float32, 1), -1);
  const Tensor onehot = k::one_hot(k::Tensor(std::vector<int64_t>{0, 1, 2, 1, 0, 2, 2, 1}, k::Shape{8}), 3);
  const Tensor sparse = k::Tensor(std::vector<int64_t>{0, 1, 2, 1, 0, 2, 2, 1}, k::Shape{8});
  const Tensor weights = k::random::uniform({8}, 0.5, 1.5, k::float32, 2);
  // Dense targets first (regression and categorical metrics), then sparse labels.
  const std::vector<std::vector<Tensor>> kinds = {{k::cast(onehot, k::float32), probs, weights},
                                                  {sparse, probs, weights}};
  int compared = 0;
  for (const auto& name : k::metrics::names()) {
    try {
      if (!k::metrics::get(name)->runs_on_device()) continue;
    } catch (const std::exception&) {
      continue;  // needs arguments (MeanIoU's class count, ...)
    }
    for (const auto& inputs : kinds) {
      Tensor want;
      try {
        want = run_metric(name, inputs, k::Device::cpu());
      } catch (const std::exception&) {
        continue;  // this metric takes the other kind of target
      }
      INFO("metric ", name);
      check_close(name, want, run_metric(name, inputs, gpu()), kF32);
      ++compared;
      break;
    }
  }
  MESSAGE(compared, " metrics compared on the device");
  CHECK(compared >= 20);
}

namespace {

struct Fitted {
  std::vector<double> loss, metric;
  std::vector<k::Device> states;
  std::vector<float> evaluated;
};

Fitted fit_with(k::Device device, const std::string& metric) {
  k::random::set_seed(3);
  auto model = std::make_shared<k::Sequential>(std::vector<std::shared_ptr<k::Layer>>{
      L::Input({5}), L::Dense(8, {.activation = "relu"}), L::Dense(3)});
  model->to(device);
  model->compile({.optimizer = k::optimizers::SGD({.learning_rate = 0.1}),
                  .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                  .metrics = {metric}});
  Tensor x = k::random::normal({48, 5}, 0, 1, k::float32, 4);
  Tensor y = k::cast(k::argmax(x[{k::Slice(), k::Slice(0, 3)}], -1), k::int64);
  auto h = model->fit(x, y, {.batch_size = 16, .epochs = 3, .verbose = 0, .shuffle = false});
  Fitted f;
  f.loss = h.history.at("loss");
  f.metric = h.history.at(metric);
  for (const auto& m : model->metrics())
    for (const auto& v : m->variables()) f.states.push_back(v.device());
  f.evaluated = model->evaluate(x, y, {.batch_size = 16, .verbose = 0});
  model->to(k::Device::cpu());
  for (const auto& m : model->metrics())
    for (const auto& v : m->variables()) CHECK(v.device().is_cpu());  // they follow the model back
  CHECK(model->evaluate(x, y, {.batch_size = 16, .verbose = 0}).size() == f.evaluated.size());
  return f;
}

}  // namespace

TEST_CASE("a GPU model keeps its metrics on the GPU when all can run there, else on the host") {
  KILN_REQUIRE_GPU("metrics of a GPU model");
  for (const std::string metric : {"accuracy", "sparse_top_k_categorical_accuracy"}) {
    INFO("metric ", metric);
    const bool on_device = metric == "accuracy";
    const Fitted c = fit_with(k::Device::cpu(), metric), g = fit_with(gpu(), metric);
    REQUIRE(!g.states.empty());
    for (const auto& d : g.states) CHECK(d == (on_device ? gpu() : k::Device::cpu()));
    REQUIRE(g.loss.size() == c.loss.size());
    for (std::size_t e = 0; e < c.loss.size(); ++e) {
      CHECK(g.loss[e] == doctest::Approx(c.loss[e]).epsilon(1e-4));
      CHECK(g.metric[e] == doctest::Approx(c.metric[e]).epsilon(1e-4));
    }
    REQUIRE(g.evaluated.size() == c.evaluated.size());
    for (std::size_t i = 0; i < c.evaluated.size(); ++i)
      CHECK(g.evaluated[i] == doctest::Approx(c.evaluated[i]).epsilon(1e-4));
  }
}
