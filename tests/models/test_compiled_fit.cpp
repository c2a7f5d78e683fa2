// fit with the compiled train function (jit_compile, the default) against
// the same fit run eagerly: identical histories and weights, a separate trace
// for the last partial batch, and the eager fallback for a step that cannot
// be traced.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <iostream>
#include <sstream>

#include "guide_cnn.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_compiled_fit {

namespace k = kiln;
namespace L = kiln::layers;

namespace {

struct Run {
  std::vector<double> loss, metric;
  std::vector<float> weights;
};

Run fit_once(const std::function<std::shared_ptr<k::Model>()>& make, bool jit, const k::Tensor& x,
             const k::Tensor& y, const std::string& loss, const std::string& metric, int batch) {
  k::clear_session();
  k::random::set_seed(21);
  auto model = make();
  model->compile({.optimizer = "adam", .loss = loss, .metrics = {metric}, .jit_compile = jit});
  auto h = model->fit(x, y, {.batch_size = batch, .epochs = 3, .verbose = 0, .shuffle = true});
  Run r{h["loss"], h[metric], {}};
  for (const auto& w : model->weights()) {
    auto v = w.value().to_vector<float>();
    r.weights.insert(r.weights.end(), v.begin(), v.end());
  }
  return r;
}

void check_same(const Run& eager, const Run& compiled) {
  REQUIRE(eager.loss.size() == compiled.loss.size());
  for (std::size_t i = 0; i < eager.loss.size(); ++i) {
    CHECK(compiled.loss[i] == doctest::Approx(eager.loss[i]).epsilon(1e-6));
    CHECK(compiled.metric[i] == doctest::Approx(eager.metric[i]).epsilon(1e-6));
  }
  REQUIRE(eager.weights.size() == compiled.weights.size());
  double worst = 0;
  for (std::size_t i = 0; i < eager.weights.size(); ++i)
    worst = std::max(worst, static_cast<double>(std::abs(eager.weights[i] - compiled.weights[i])));
  CHECK(worst <= 1e-6);
}

}  // namespace

TEST_CASE("compiled fit: a Sequential MLP with BatchNormalization and Dropout equals eager fit, partial batch included") {
  auto make = [] {
    return std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{
        L::Input({6}), L::Dense(16, {.activation = "relu"}), L::BatchNormalization(), L::Dropout(0.3),
        L::Dense(3, {.activation = "softmax"})});
  };
  k::Tensor x = k::random::normal({37, 6}, 0, 1, k::DType::float32, 4);
  k::Tensor y = k::random::uniform({37}, 0, 3, k::DType::int32, 5);
  const Run eager = fit_once(make, false, x, y, "sparse_categorical_crossentropy", "accuracy", 8);
  const Run compiled = fit_once(make, true, x, y, "sparse_categorical_crossentropy", "accuracy", 8);
  check_same(eager, compiled);
  CHECK(eager.loss.back() < eager.loss.front());
}

TEST_CASE("compiled fit: a functional two-output model with loss weights equals eager fit") {
  auto make = [] {
    auto in = L::Input({5});
    auto h = L::Dense(8, {.activation = "tanh"})(in);
    auto a = L::Dense(2, {.name = "a"})(h);
    auto b = L::Dense(1, {.name = "b"})(h);
    return std::make_shared<k::Model>(in, std::vector<k::Tensor>{a, b});
  };
  k::Tensor x = k::random::normal({20, 5}, 0, 1, k::DType::float32, 6);
  k::Tensor ya = k::random::normal({20, 2}, 0, 1, k::DType::float32, 7);
  k::Tensor yb = k::random::normal({20, 1}, 0, 1, k::DType::float32, 8);
  auto run = [&](bool jit) {
    k::clear_session();
    k::random::set_seed(3);
    auto model = make();
    model->compile({.optimizer = "rmsprop", .loss = "mse", .loss_weights = {{"a", 1.0}, {"b", 0.5}},
                    .jit_compile = jit});
    auto h = model->fit(x, std::vector<k::Tensor>{ya, yb}, {.batch_size = 6, .epochs = 2, .verbose = 0});
    return std::vector<std::vector<double>>{h["loss"], h["a_loss"], h["b_loss"]};
  };
  const auto eager = run(false), compiled = run(true);
  for (std::size_t k2 = 0; k2 < eager.size(); ++k2)
    for (std::size_t i = 0; i < eager[k2].size(); ++i)
      CHECK(compiled[k2][i] == doctest::Approx(eager[k2][i]).epsilon(1e-6));
}

TEST_CASE("compiled fit: the guide's MNIST CNN trains to the same numbers as eagerly") {
  k::Tensor x = k::random::uniform({40, 28, 28, 1}, 0, 1, k::DType::float32, 9);
  k::Tensor y = k::random::uniform({40}, 0, 10, k::DType::int32, 10);
  auto make = [] { return std::make_shared<k::Sequential>(k::examples::guide_cnn_layers()); };
  const Run eager = fit_once(make, false, x, y, "sparse_categorical_crossentropy", "accuracy", 16);
  const Run compiled = fit_once(make, true, x, y, "sparse_categorical_crossentropy", "accuracy", 16);
  check_same(eager, compiled);
}

namespace {
/// A layer whose call reads a value on the host: it cannot be traced.
class HostReading : public k::Layer {
 protected:
  k::Tensor call(const k::Tensor& x, bool) override { return k::mean(x).item<float>() > 1e9f ? x * 0.f : x; }
};
}  // namespace

TEST_CASE("compiled fit: a step that cannot be traced runs eagerly after a warning, with eager's results") {
  k::Tensor x = k::random::normal({12, 3}, 0, 1, k::DType::float32, 11);
  k::Tensor y = k::random::normal({12, 1}, 0, 1, k::DType::float32, 12);
  auto make = [] {
    auto m = std::make_shared<k::Sequential>(
        std::vector<k::LayerPtr>{L::Input({3}), L::Dense(4), L::BatchNormalization()});
    m->add(k::make_layer<HostReading>());
    m->add(L::Dense(1));
    return m;
  };
  const Run eager = fit_once(make, false, x, y, "mse", "mae", 4);
  std::ostringstream err;
  auto* saved = std::cerr.rdbuf(err.rdbuf());
  const Run compiled = fit_once(make, true, x, y, "mse", "mae", 4);
  std::cerr.rdbuf(saved);
  CHECK(err.str().find("its train_step cannot be traced, so it runs eagerly") != std::string::npos);
  CHECK(err.str().find("Tensor::to_vector() / item()") != std::string::npos);
  // The failed trace's forward pass (BatchNormalization's moving statistics) was undone.
  check_same(eager, compiled);
}

TEST_CASE("compiled evaluate and predict equal eager, partial batch included") {
  k::Tensor x = k::random::normal({37, 6}, 0, 1, k::DType::float32, 4);
  k::Tensor y = k::random::uniform({37}, 0, 3, k::DType::int32, 5);
  std::vector<double> results[2];
  std::vector<float> predictions[2];
  for (bool jit : {false, true}) {
    k::clear_session();
    k::random::set_seed(3);
    auto m = std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{
        L::Input({6}), L::Dense(8, {.activation = "relu"}), L::Dropout(0.5), L::Dense(3, {.activation = "softmax"})});
    m->compile({.optimizer = "sgd", .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"},
                .jit_compile = jit});
    for (int rep = 0; rep < 2; ++rep) {  // the second round replays
      const std::vector<float> l = m->evaluate(x, y, {.batch_size = 8, .verbose = 0});
      results[jit] = {l.at(0), l.at(1)};
      predictions[jit] = m->predict(x, {.batch_size = 8, .verbose = 0}).to_vector<float>();
    }
  }
  CHECK(results[1][0] == doctest::Approx(results[0][0]).epsilon(1e-6));
  CHECK(results[1][1] == doctest::Approx(results[0][1]).epsilon(1e-6));
  REQUIRE(predictions[1].size() == 37u * 3u);
  CHECK(predictions[1] == predictions[0]);  // Dropout is off in predict: the same kernels give the same bits
}

namespace {
/// A Keras-style custom train_step that returns its metrics' results as tensors: it is traced.
class TracedStep : public k::Sequential {
 public:
  using k::Sequential::Sequential;
  int bodies = 0;
  k::Logs train_step(const k::Batch& b) override {
    ++bodies;  // runs only while tracing once compiled
    std::vector<k::Variable> vars = trainable_variables();
    std::vector<std::optional<k::Tensor>> grads;
    k::Tensor loss;
    {
      k::GradientTape tape;
      loss = k::mean(k::square(b.y[0] - call_outputs(b.x, true)[0]));
      grads = tape.gradient(loss, vars);
    }
    optimizer()->apply(grads, vars);
    tracker_->update_state(loss);
    return {{"loss", tracker_->result()}};  // Keras's {"loss": self.tracker.result()}
  }
  std::vector<k::MetricPtr> metrics() const override { return {tracker_}; }

 private:
  std::shared_ptr<k::metrics::Mean> tracker_ = std::make_shared<k::metrics::Mean>(k::MetricOptions{.name = "loss"});
};
}  // namespace

TEST_CASE("Logs from pairs: numbers and one-element tensors mixed, kept in the order given") {
  const k::Logs logs{{"loss", k::Tensor(0.25f)}, {"accuracy", 0.75}, {"lr", k::Tensor(0.125)}, {"epoch", 3}};
  const std::vector<std::pair<std::string, double>> want{{"loss", 0.25}, {"accuracy", 0.75}, {"lr", 0.125}, {"epoch", 3}};
  CHECK(logs.tensor_values().size() == 2u);  // the tensors stay tensors until read, so a trace can return them
  CHECK(logs.items() == want);
}

TEST_CASE("compiled fit: an overridden train_step is traced once per batch shape and equals eager") {
  k::Tensor x = k::random::normal({20, 3}, 0, 1, k::DType::float32, 8);
  k::Tensor y = k::random::normal({20, 1}, 0, 1, k::DType::float32, 9);
  std::vector<double> losses[2];
  std::vector<float> weights[2];
  int bodies[2];
  for (bool jit : {false, true}) {
    k::clear_session();
    k::random::set_seed(4);
    auto m = std::make_shared<TracedStep>(std::vector<k::LayerPtr>{L::Input({3}), L::Dense(4), L::Dense(1)});
    m->compile({.optimizer = "adam", .jit_compile = jit});
    auto h = m->fit(x, y, {.batch_size = 8, .epochs = 4, .verbose = 0});
    losses[jit] = h["loss"];
    for (const auto& w : m->weights())
      for (float v : w.value().to_vector<float>()) weights[jit].push_back(v);
    bodies[jit] = m->bodies;
  }
  CHECK(bodies[0] == 12);  // 3 batches (8, 8, 4) x 4 epochs, eagerly
  CHECK(bodies[1] == 2);   // one trace for batches of 8, one for the last batch of 4
  REQUIRE(losses[0].size() == 4u);
  for (std::size_t i = 0; i < 4; ++i) CHECK(losses[1][i] == doctest::Approx(losses[0][i]).epsilon(1e-6));
  REQUIRE(weights[0].size() == weights[1].size());
  for (std::size_t i = 0; i < weights[0].size(); ++i) CHECK(weights[1][i] == doctest::Approx(weights[0][i]).epsilon(1e-5));
}

TEST_CASE("compiled predict leaves the optimizer unbuilt; evaluate and fit build it, as Keras 3 does") {
  // Keras 3.15 (JAX): after compile, optimizer.built is False; after predict, still False;
  // after evaluate, True (its symbolic build makes the slots), and after fit, True.
  namespace L = kiln::layers;
  auto make = [] {
    auto m = std::make_shared<kiln::Sequential>(std::vector<kiln::LayerPtr>{L::Input({4}), L::Dense(2)});
    m->compile({.optimizer = "adam", .loss = "mse"});
    return m;
  };
  const kiln::Tensor x = kiln::zeros({3, 4}), y = kiln::zeros({3, 2});
  auto predicted = make();
  CHECK_FALSE(predicted->optimizer()->built());
  predicted->predict(x, {.verbose = 0});
  CHECK_FALSE(predicted->optimizer()->built());
  auto evaluated = make();
  evaluated->evaluate(x, y, {.verbose = 0});
  CHECK(evaluated->optimizer()->built());
  predicted->fit(x, y, {.epochs = 1, .verbose = 0});
  CHECK(predicted->optimizer()->built());
}

}  // namespace test_compiled_fit
