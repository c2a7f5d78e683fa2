// Whole-model behaviour on a GPU: model.to(device) moves variables and
// optimizer slots, the gradient checker's float64 comparison holds on the GPU,
// the guide's MNIST CNN trains there to the CPU's accuracy, and a model saved
// from the GPU loads back with the same weights.
#include <doctest/doctest.h>

#include <kiln/kiln.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "guide_cnn.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_gpu_training {

namespace k = kiln;
namespace L = kiln::layers;
using k::Tensor;
using Ins = std::vector<Tensor>;
using namespace kiln::cudatest;

namespace {

/// kiln::check_gradients' method with f evaluated on `device`: central
/// differences in float64 of sum(f(x)·r) against the tape's gradient there.
/// (The public checker perturbs inputs through Tensor::data(), which is host
/// only.)
k::GradientCheckResult device_check_gradients(const Fn& f, const Ins& inputs_cpu, k::Device device, double eps = 1e-6,
                                              double atol = 1e-6, double rtol = 1e-4) {
  Ins inputs;
  for (const auto& t : inputs_cpu) inputs.push_back(is_floating(t.dtype()) ? k::cast(t, k::float64) : t);
  auto on_device = [&](const Ins& xs) {
    Ins d;
    for (const auto& t : xs) d.push_back(t.to(device));
    return d;
  };
  Tensor y0 = f(on_device(inputs));
  Tensor r = k::random::normal(y0.shape(), 0, 1, k::float64, 1234).to(device);
  auto project = [&](const Ins& xs) { return k::sum(k::multiply(k::cast(f(on_device(xs)), k::float64), r)).item<double>(); };
  std::vector<std::optional<Tensor>> grads;
  {
    Ins dev = on_device(inputs);
    k::GradientTape tape;
    std::vector<k::Source> sources;
    for (const auto& t : dev)
      if (is_floating(t.dtype())) {
        tape.watch(t);
        sources.emplace_back(t);
      }
    Tensor target = k::sum(k::multiply(k::cast(f(dev), k::float64), r));
    grads = tape.gradient(target, sources, k::UnconnectedGradients::Zero);
  }
  k::GradientCheckResult res;
  std::size_t src = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!is_floating(inputs[i].dtype())) continue;
    REQUIRE(grads[src]->device() == device);
    const auto analytic = grads[src++]->to_vector<double>();
    auto base = inputs[i].to_vector<double>();
    for (std::size_t j = 0; j < base.size(); ++j) {
      auto perturbed = [&](double delta) {
        Ins xs = inputs;
        auto v = base;
        v[j] += delta;
        xs[i] = Tensor(v, inputs[i].shape());
        return project(xs);
      };
      const double numeric = (perturbed(eps) - perturbed(-eps)) / (2 * eps);
      const double err = std::abs(analytic[j] - numeric);
      res.max_abs_error = std::max(res.max_abs_error, err);
      if (err > atol + rtol * std::abs(numeric) && res.ok) {
        res.ok = false;
        res.report = "input " + std::to_string(i) + " element " + std::to_string(j) + ": analytic " +
                     std::to_string(analytic[j]) + " vs numeric " + std::to_string(numeric);
      }
    }
  }
  return res;
}

void grad_ok(const std::string& name, const Fn& f, const Ins& inputs) {
  auto r = device_check_gradients(f, inputs, gpu());
  INFO(name, ": ", r.report, " (max abs error ", r.max_abs_error, ")");
  CHECK(r.ok);
}

Tensor rn(const k::Shape& s, uint64_t seed) { return k::random::normal(s, 0, 1, k::float64, seed); }

/// The TensorFlow guide's MNIST CNN (examples/mnist_cnn.cpp).
std::shared_ptr<k::Sequential> guide_cnn() {
  return std::make_shared<k::Sequential>(k::examples::guide_cnn_layers(/*kernel_l2=*/0));
}

/// A custom training loop (batches moved to `device` by hand), then test accuracy.
double train_and_score(k::Device device, const Tensor& x, const Tensor& y, const Tensor& xt, const Tensor& yt,
                       int epochs) {
  k::random::set_seed(0);
  auto model = guide_cnn();
  model->to(device);
  auto opt = std::make_shared<k::optimizers::Adam>();
  k::losses::SparseCategoricalCrossentropy loss_fn({.from_logits = true});
  const int64_t n = x.shape()[0], bs = 64;
  for (int e = 0; e < epochs; ++e)
    for (int64_t i = 0; i + bs <= n; i += bs) {
      Tensor xb = x[{k::Slice(i, i + bs)}].to(device);
      Tensor yb = y[{k::Slice(i, i + bs)}].to(device);
      k::GradientTape tape;
      Tensor logits = (*model)(xb, true);
      Tensor loss = loss_fn(yb, logits);
      auto vars = model->trainable_variables();
      opt->apply(tape.gradient(loss, vars), vars);
    }
  for (const auto& v : opt->variables())
    if (v.name() != "iteration" && v.name() != "learning_rate") CHECK(v.device() == device);
  int64_t correct = 0;
  const auto labels = yt.to_vector<int64_t>();
  for (int64_t i = 0; i < xt.shape()[0]; i += 500) {
    const int64_t j = std::min<int64_t>(i + 500, xt.shape()[0]);
    const auto pred = k::argmax((*model)(xt[{k::Slice(i, j)}].to(device), false), -1).to_vector<int64_t>();
    for (std::size_t q = 0; q < pred.size(); ++q) correct += pred[q] == labels[i + q];
  }
  return static_cast<double>(correct) / static_cast<double>(xt.shape()[0]);
}

}  // namespace

TEST_CASE("the gradient checker's comparison holds on the GPU (float64)") {
  KILN_REQUIRE_GPU("GPU gradient checks");
  grad_ok("conv2d same", [](const Ins& v) { return k::conv2d(v[0], v[1], {.padding = "same"}); },
          {rn({2, 5, 5, 2}, 1), rn({3, 3, 2, 3}, 2)});
  grad_ok("conv2d strided even kernel", [](const Ins& v) { return k::conv2d(v[0], v[1], {.strides = {2, 2}, .padding = "same"}); },
          {rn({1, 6, 5, 2}, 3), rn({2, 2, 2, 2}, 4)});
  grad_ok("max_pool2d", [](const Ins& v) { return k::max_pool2d(v[0], {.pool_size = {3, 3}, .strides = {2, 2}, .padding = "same"}); },
          {rn({1, 5, 5, 2}, 5)});
  grad_ok("avg_pool2d", [](const Ins& v) { return k::avg_pool2d(v[0], {.padding = "same"}); }, {rn({1, 5, 5, 2}, 6)});
  grad_ok("dense tanh", [](const Ins& v) { return k::tanh(k::matmul(v[0], v[1]) + v[2]); },
          {rn({4, 5}, 7), rn({5, 3}, 8), rn({3}, 9)});
  grad_ok("sparse xent", [](const Ins& v) { return k::sparse_softmax_cross_entropy_with_logits(v[1], v[0]); },
          {rn({6, 5}, 10), Tensor({0, 4, 2, 2, 1, 3})});
  grad_ok("normalize", [](const Ins& v) {
    Tensor m = k::mean(v[0], k::Axes(-1), true);
    return (v[0] - m) * k::rsqrt(k::var(v[0], k::Axes(-1), true) + 1e-3);
  }, {rn({3, 6}, 11)});
  grad_ok("gather", [](const Ins& v) { return k::gather(v[0], v[1], 0); }, {rn({4, 3}, 12), Tensor({3, 0, 3, 1})});
}

TEST_CASE("model.to(device) moves every variable; optimizer slots follow") {
  KILN_REQUIRE_GPU("model.to");
  auto model = guide_cnn();
  model->compile({.optimizer = "adam",
                  .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true})});
  // One CPU step creates the Adam slots on the CPU.
  Tensor x = k::random::uniform({8, 28, 28, 1}, 0, 1), y = Tensor({0, 1, 2, 3, 4, 5, 6, 7});
  {
    k::GradientTape tape;
    Tensor loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true})(y, (*model)(x, true));
    auto vars = model->trainable_variables();
    model->optimizer()->apply(tape.gradient(loss, vars), vars);
  }
  const auto before = model->get_weights();
  model->to(gpu());
  for (const auto& v : model->weights()) CHECK(v.device() == gpu());
  int slots = 0;
  for (const auto& v : model->optimizer()->variables())
    if (v.name() != "iteration" && v.name() != "learning_rate") {
      CHECK(v.device() == gpu());
      ++slots;
    }
  CHECK(slots == 2 * static_cast<int>(model->trainable_variables().size()));
  // Weights read back unchanged, and a GPU forward matches the CPU one.
  const auto after = model->get_weights();
  REQUIRE(after.size() == before.size());
  for (std::size_t i = 0; i < after.size(); ++i) check_close("weight " + std::to_string(i), before[i], after[i], {0, 0});
  Tensor out_gpu = (*model)(x.to(gpu()), false);
  model->to(k::Device::cpu());
  check_close("forward after a round trip", (*model)(x, false), out_gpu.to(k::Device::cpu()), {1e-4, 1e-5});
  // A save from the GPU stores the same weights as from the CPU.
  model->to(gpu());
  const auto path = (std::filesystem::temp_directory_path() / "kiln_cuda_test.keras").string();
  model->save(path);
  auto loaded = k::models::load_model(path);
  const auto lw = loaded->get_weights();
  REQUIRE(lw.size() == after.size());
  for (std::size_t i = 0; i < lw.size(); ++i) check_close("loaded weight " + std::to_string(i), after[i], lw[i], {0, 0});
  std::filesystem::remove(path);
}

TEST_CASE("the guide's MNIST CNN trains on the GPU to the CPU's accuracy") {
  KILN_REQUIRE_GPU("MNIST CNN training on the GPU");
  auto [train, test] = k::datasets::mnist::load_data();
  const int64_t n = 4096;
  Tensor x = k::expand_dims(k::cast(train.x[{k::Slice(0, n)}], k::float32) / 255.0, -1);
  Tensor y = k::cast(train.y[{k::Slice(0, n)}], k::int64);
  Tensor xt = k::expand_dims(k::cast(test.x, k::float32) / 255.0, -1);
  Tensor yt = k::cast(test.y, k::int64);
  const double cpu_acc = train_and_score(k::Device::cpu(), x, y, xt, yt, 3);
  const double gpu_acc = train_and_score(gpu(), x, y, xt, yt, 3);
  MESSAGE("MNIST CNN, 3 epochs on 4096 images: CPU accuracy ", cpu_acc, ", GPU accuracy ", gpu_acc);
  CHECK(cpu_acc > 0.9);
  CHECK(gpu_acc > 0.9);
  CHECK(std::abs(gpu_acc - cpu_acc) < 0.03);
}

namespace {
/// A model that exercises what fit does beyond the layers' maths: dropout and
/// batch norm in training mode, a kernel regularizer's loss, metrics.
std::shared_ptr<k::Sequential> workflow_model() {
  k::random::set_seed(7);
  return std::make_shared<k::Sequential>(std::vector<std::shared_ptr<k::Layer>>{
      L::Input({6, 6, 2}),
      L::Conv2D(4, 3, {.activation = "relu", .kernel_regularizer = k::regularizers::L2(1e-3)}),
      L::BatchNormalization(),
      L::Flatten(),
      L::Dropout(0.25),
      L::Dense(3),
  });
}

struct WorkflowRun {
  std::vector<double> loss, acc, val_loss;
  std::vector<float> evaluated;
  std::vector<Tensor> weights;
  Tensor predicted;
};

WorkflowRun run_workflow(k::Device device, bool jit) {
  auto model = workflow_model();
  model->to(device);
  model->compile({.optimizer = k::optimizers::Adam({.learning_rate = 0.01}),
                  .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true}),
                  .metrics = {"accuracy"},
                  .jit_compile = jit});
  Tensor x = k::random::normal({64, 6, 6, 2}, 0, 1, k::float32, 11);
  Tensor y = k::cast(k::argmax(k::sum(x, {1, 2}), -1), k::int64);  // learnable labels 0..1 (2 channels)
  Tensor sw = k::random::uniform({64}, 0.5, 1.5, k::float32, 12);
  k::random::set_seed(21);  // dropout's masks
  auto h = model->fit(x, y, {.batch_size = 16, .epochs = 3, .verbose = 0,
                             .validation_split = 0.25, .shuffle = false, .sample_weight = sw});
  WorkflowRun r;
  r.loss = h.history.at("loss");
  r.acc = h.history.at("accuracy");
  r.val_loss = h.history.at("val_loss");
  r.evaluated = model->evaluate(x, y, {.batch_size = 32, .verbose = 0});
  r.predicted = model->predict(x, {.batch_size = 32}).to(k::Device::cpu());
  for (const auto& w : model->get_weights()) r.weights.push_back(w.to(k::Device::cpu()));
  return r;
}
}  // namespace

TEST_CASE("fit, evaluate and predict on the GPU follow the CPU, eager and compiled") {
  KILN_REQUIRE_GPU("the Keras workflow on the GPU");
  for (bool jit : {false, true}) {
    INFO("jit_compile=", jit);
    const WorkflowRun c = run_workflow(k::Device::cpu(), jit);
    const WorkflowRun g = run_workflow(gpu(), jit);
    // Dropout draws its masks from different generators on the two devices
    // (Philox on the GPU), so the trajectories agree only roughly; the
    // inference passes below agree to float rounding given the same weights.
    REQUIRE(g.loss.size() == 3);
    for (std::size_t e = 0; e < 3; ++e) {
      CHECK(std::isfinite(g.loss[e]));
      CHECK(g.loss[e] == doctest::Approx(c.loss[e]).epsilon(0.25));
      CHECK(g.val_loss[e] == doctest::Approx(c.val_loss[e]).epsilon(0.25));
    }
    CHECK(g.loss.back() < g.loss.front());
    REQUIRE(g.evaluated.size() == 2);
    REQUIRE(g.weights.size() == c.weights.size());
    // The GPU model's own weights, run through the CPU, give its predictions.
    auto check_model = workflow_model();
    check_model->set_weights(g.weights);
    Tensor x = k::random::normal({64, 6, 6, 2}, 0, 1, k::float32, 11);
    check_close("GPU predict vs the same weights on the CPU", check_model->predict(x, {.batch_size = 32}), g.predicted,
                kF32);
  }
}

}  // namespace test_gpu_training

namespace test_gpu_training {

TEST_CASE("predict, evaluate and fit take arrays that already live on the GPU") {
  KILN_REQUIRE_GPU("device-resident arrays");
  auto model = workflow_model();
  model->to(gpu());
  model->compile({.optimizer = "sgd", .loss = k::losses::SparseCategoricalCrossentropy({.from_logits = true})});
  Tensor x = k::random::normal({40, 6, 6, 2}, 0, 1, k::float32, 13);
  Tensor y = k::cast(k::argmax(k::sum(x, {1, 2}), -1), k::int64);
  const Tensor xg = x.to(gpu()), yg = y.to(gpu());
  // Batches of 16 from the host and from the device: the same rows, the same results.
  check_close("predict", model->predict(x, {.batch_size = 16}), model->predict(xg, {.batch_size = 16}), kF32);
  const auto host = model->evaluate(x, y, {.batch_size = 16, .verbose = 0});
  const auto device = model->evaluate(xg, yg, {.batch_size = 16, .verbose = 0});
  REQUIRE(host.size() == device.size());
  for (std::size_t i = 0; i < host.size(); ++i) CHECK(device[i] == doctest::Approx(host[i]).epsilon(1e-5));
  auto h = model->fit(xg, yg, {.batch_size = 16, .epochs = 2, .verbose = 0});
  for (double l : h.history.at("loss")) CHECK(std::isfinite(l));
}

}  // namespace test_gpu_training
