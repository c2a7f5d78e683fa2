// kiln::function against eager execution, in one run: the graphs guide's
// power(x, 100) (int32 10x10), a hand-written training step of a small,
// overhead-bound MLP (784-32-10, batch 32, SGD by assign_sub), and fit with the
// compiled train step against fit run eagerly (that MLP at batch 32, the
// 784-512-512-10 MLP at batch 128, the guide's CNN at batch 64), the "TF basics"
// guide's linear regression step, the CNN's predict, and the compiled CNN step
// as a fraction of the machine's sgemm throughput, and the cost of a new batch
// size for a shape-polymorphic function against a retrace, and what tracing and planning a
// compiled ResNet50 training step costs. Prints one JSON line per case with microseconds
// per call (or per step) and the ratio.
#include <kiln/applications.h>
#include <kiln/kiln.h>

#include "eager_vs_traced.h"

#include "guide_cnn.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace k = kiln;

namespace {

using kiln::bench::report;
using kiln::bench::time_us;

void bench_power() {
  k::Tensor x = k::random::uniform({10, 10}, -1, 2, k::DType::int32, 1);
  auto power = [](const k::Tensor& x, int y) {
    k::Tensor result = k::eye(10, std::nullopt, k::DType::int32);
    for (int i = 0; i < y; ++i) result = k::matmul(x, result);
    return result;
  };
  auto power_as_graph = k::function(power, {.name = "power"});
  const double eager = time_us([&] { power(x, 100); }, 200);
  const double traced = time_us([&] { power_as_graph(x, 100); }, 200);
  report("power(x, 100) int32 10x10", eager, traced);
}

void bench_mlp_step() {
  k::random::set_seed(3);
  auto d1 = kiln::layers::Dense(32, {.activation = "relu"});
  auto d2 = kiln::layers::Dense(10);
  auto step = [&](const k::Tensor& x, const k::Tensor& y) {
    k::GradientTape tape;
    k::Tensor loss = k::mean(k::square(d2(d1(x, true), true) - y));
    std::vector<k::Variable> vars = d1->trainable_variables();
    for (const auto& v : d2->trainable_variables()) vars.push_back(v);
    auto grads = tape.gradient(loss, vars);
    for (std::size_t i = 0; i < vars.size(); ++i) vars[i].assign_sub(*grads[i] * 0.01f);
    return loss;
  };
  auto traced_step = k::function(step, {.name = "train_step"});
  k::Tensor x = k::random::uniform({32, 784});
  k::Tensor y = k::random::uniform({32, 10});
  const double eager = time_us([&] { step(x, y); }, 200);
  const double traced = time_us([&] { traced_step(x, y); }, 200);
  report("MLP 784-32-10 batch 32 train step", eager, traced);
}

/// The "TF basics" guide's linear regression: w * x + b on 201 points, one full-batch
/// gradient step with learning rate 0.1 (a handful of element-wise ops).
void bench_linear_regression() {
  k::Tensor x = k::linspace(-2.0, 2.0, 201);
  k::Tensor y = x * 3.f + 2.f + k::random::normal({201}, 0, 1, k::DType::float32, 2);
  k::Variable w(k::Tensor(5.f)), b(k::Tensor(0.f));
  auto step = [&](const k::Tensor& xs, const k::Tensor& ys) {
    k::GradientTape tape;
    k::Tensor loss = k::mean(k::square(ys - (w.value() * xs + b.value())));
    auto g = tape.gradient(loss, std::vector<k::Variable>{w, b});
    w.assign_sub(*g[0] * 0.1f);
    b.assign_sub(*g[1] * 0.1f);
    return loss;
  };
  auto traced = k::function(step, {.name = "linear_regression_step"});
  const double eager = time_us([&] { step(x, y); }, 500);
  const double compiled = time_us([&] { traced(x, y); }, 500);
  report("guide linear regression train step (201 points)", eager, compiled);
}

/// Serving a new batch size with the guide CNN's training step (forward,
/// tape, SGD by assign_sub): the first call at batch 32 after a trace at 64,
/// for a function that traces its body again and for one whose
/// input_signature leaves the batch unknown (it re-runs its trace's op log);
/// then replays at batch 32 of each, which should not differ.
void bench_new_batch_size() {
  k::random::set_seed(5);
  auto model = std::make_shared<k::Sequential>(k::examples::guide_cnn_layers());
  auto step = [&](const k::Tensor& x, const k::Tensor& y) {
    k::GradientTape tape;
    const k::Tensor loss = k::mean(k::square((*model)(x, true) - y));
    auto vars = model->trainable_variables();
    auto grads = tape.gradient(loss, vars);
    for (std::size_t i = 0; i < vars.size(); ++i) vars[i].assign_sub(*grads[i] * 0.01f);
    return loss;
  };
  const k::Tensor x64 = k::random::uniform({64, 28, 28, 1}), y64 = k::random::uniform({64, 10});
  const k::Tensor x32 = k::random::uniform({32, 28, 28, 1}), y32 = k::random::uniform({32, 10});
  const k::FunctionOptions plain{.name = "train_step"};
  const k::FunctionOptions polymorphic{
      .name = "train_step", .input_signature = {k::TensorSpec({-1, 28, 28, 1}), k::TensorSpec({-1, 10})}};
  auto first_call_us = [&](const k::FunctionOptions& o) {
    std::vector<double> us;
    for (int r = 0; r < 5; ++r) {
      auto f = k::function(step, o);
      f(x64, y64);
      const auto t0 = std::chrono::steady_clock::now();
      f(x32, y32);
      us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
  };
  report("guide CNN train step, first call at a new batch size: body traced again vs trace's op log re-run",
         first_call_us(plain), first_call_us(polymorphic));
  auto a = k::function(step, plain), b = k::function(step, polymorphic);
  b(x64, y64);
  report("guide CNN train step replays at batch 32: own trace vs specialization of a batch-64 trace",
         time_us([&] { a(x32, y32); }, 30), time_us([&] { b(x32, y32); }, 30));
}

/// A compiled model for fit_steps_us.
std::shared_ptr<k::Model> fit_model(const std::function<std::shared_ptr<k::Model>()>& make, bool jit, int steps_per_execution = 1) {
  k::random::set_seed(5);
  auto model = make();
  model->compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy", .jit_compile = jit,
                  .steps_per_execution = steps_per_execution});
  return model;
}

/// Microseconds per training step of a fit epoch, eager and compiled: after a
/// warm-up epoch each, 7 epochs of each alternate, so a change in the machine's
/// load between them affects both alike; medians.
/// With steps_per_execution, the compiled fit runs that many steps per replay (eager fit is unaffected).
std::pair<double, double> fit_steps_us(const std::function<std::shared_ptr<k::Model>()>& make, const k::Tensor& x,
                                       const k::Tensor& y, int batch, int steps_per_execution = 1) {
  std::shared_ptr<k::Model> models[2] = {fit_model(make, false), fit_model(make, true, steps_per_execution)};
  std::vector<double> per_step[2];
  for (int r = -1; r < 7; ++r)
    for (int jit : {0, 1}) {
      const auto t0 = std::chrono::steady_clock::now();
      models[jit]->fit(x, y, {.batch_size = batch, .epochs = 1, .verbose = 0});
      const auto t1 = std::chrono::steady_clock::now();
      if (r >= 0) per_step[jit].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / (x.shape()[0] / batch));
    }
  for (auto& v : per_step) std::sort(v.begin(), v.end());
  return {per_step[0][3], per_step[1][3]};
}

/// Microseconds per batch of predict, after a warm-up pass.
double predict_us(const std::function<std::shared_ptr<k::Model>()>& make, bool jit, const k::Tensor& x, int batch) {
  k::random::set_seed(5);
  auto model = make();
  model->compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy", .jit_compile = jit});
  model->predict(x, {.batch_size = batch, .verbose = 0});
  std::vector<double> per_batch;
  for (int r = 0; r < 3; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    model->predict(x, {.batch_size = batch, .verbose = 0});
    const auto t1 = std::chrono::steady_clock::now();
    per_batch.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / (x.shape()[0] / batch));
  }
  std::sort(per_batch.begin(), per_batch.end());
  return per_batch[1];
}

/// sgemm throughput through kiln::matmul (float32 512x512x512), in GFLOP/s: the bound a
/// model made of products cannot beat on this machine and thread count.
double sgemm_gflops() {
  k::Tensor a = k::random::uniform({512, 512}), b = k::random::uniform({512, 512});
  const double us = time_us([&] { k::matmul(a, b); }, 20);
  return 2.0 * 512 * 512 * 512 / us / 1e3;
}

void bench_fit(const std::string& name, const std::function<std::shared_ptr<k::Model>()>& make, const k::Shape& in,
               int n, int batch, int steps_per_execution = 1) {
  std::vector<int64_t> dims{n};
  for (int64_t d : in) dims.push_back(d);
  k::Tensor x = k::random::uniform(k::Shape(dims), 0, 1, k::DType::float32, 7);
  k::Tensor y = k::random::uniform({n}, 0, 10, k::DType::int32, 8);
  const auto [eager, compiled] = fit_steps_us(make, x, y, batch, steps_per_execution);
  report(name, eager, compiled);
}

/// Tracing and planning keras.applications' ResNet50 training step (batch 32, 224x224x3,
/// Adam; the step written as a custom training loop's, under kiln::function): the
/// get_concrete_function call, which records and plans without running, against one replay
/// of the planned step, and the first call of a fresh function (record, plan and a first
/// replay whose memory is new to it). "--trace-only [SIZE]" runs only this case, at SIZExSIZE
/// images if given: the trace's nodes do not depend on the image size.
void bench_resnet50_trace(int64_t size = 224) {
  k::random::set_seed(5);
  auto model =
      k::applications::ResNet50({.input_shape = k::Shape{size, size, 3}, .classes = 10, .classifier_activation = ""});
  auto optimizer = k::optimizers::get("adam");
  optimizer->build(model->trainable_variables());
  auto loss_fn = k::losses::SparseCategoricalCrossentropy({.from_logits = true});
  auto step = [&](const k::Tensor& x, const k::Tensor& y) {
    k::GradientTape tape;
    const k::Tensor loss = loss_fn(y, (*model)(x, true));
    const auto vars = model->trainable_variables();
    optimizer->apply(tape.gradient(loss, vars), vars);
    return loss;
  };
  const k::Tensor x = k::random::uniform({32, size, size, 3}, 0, 1, k::DType::float32, 7);
  const k::Tensor y = k::random::uniform({32}, 0, 10, k::DType::int32, 8);
  auto us_of = [](auto&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<double> trace_us;
  for (int r = 0; r < 3; ++r) {
    auto f = k::function(step, {.name = "train_step"});
    trace_us.push_back(us_of([&] { f.get_concrete_function(x, y); }));
  }
  std::sort(trace_us.begin(), trace_us.end());
  auto f = k::function(step, {.name = "train_step"});
  const double first = us_of([&] { f(x, y); });
  const double replay = std::min(us_of([&] { f(x, y); }), us_of([&] { f(x, y); }));
  std::printf("{\"case\": \"ResNet50 train step, batch 32, %lldx%lld: trace and plan\", \"trace_and_plan_us\": %.0f, "
              "\"first_call_us\": %.0f, \"replay_us\": %.0f}\n",
              static_cast<long long>(size), static_cast<long long>(size), trace_us[1], first, replay);
}

}  // namespace

int main(int argc, char** argv) {
  namespace L = kiln::layers;
  if (argc > 1 && std::string(argv[1]) == "--trace-only") {
    bench_resnet50_trace(argc > 2 ? std::stoll(argv[2]) : 224);
    return 0;
  }
  bench_power();
  bench_mlp_step();
  auto small = [] {
    return std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{L::Input({784}), L::Dense(32, {.activation = "relu"}),
                                                                     L::Dense(10, {.activation = "softmax"})});
  };
  bench_fit("fit MLP 784-32-10 batch 32 (per step)", small, {784}, 2048, 32);
  bench_fit("fit MLP 784-32-10 batch 32, steps_per_execution 8 (per step)", small, {784}, 2048, 32, 8);
  bench_fit("fit MLP 784-512-512-10 batch 128 (per step)", [] {
    return std::make_shared<k::Sequential>(std::vector<k::LayerPtr>{
        L::Input({784}), L::Dense(512, {.activation = "relu"}), L::Dense(512, {.activation = "relu"}),
        L::Dense(10, {.activation = "softmax"})});
  }, {784}, 2048, 128);
  auto cnn = [] { return std::make_shared<k::Sequential>(k::examples::guide_cnn_layers()); };
  bench_fit("fit guide CNN batch 64 (per step)", cnn, {28, 28, 1}, 1024, 64);
  bench_linear_regression();
  bench_new_batch_size();
  k::Tensor images = k::random::uniform({1024, 28, 28, 1}, 0, 1, k::DType::float32, 7);
  report("predict guide CNN batch 64 (per batch)", predict_us(cnn, false, images, 64), predict_us(cnn, true, images, 64));
  // The CNN's training FLOPs per image: Conv2D(32, 3) on 28x28x1 (forward and kernel gradient; its input
  // needs none), Dense(5408 -> 64) and Dense(64 -> 10) (forward, kernel and input gradients).
  const double conv = 26.0 * 26 * 9 * 32, dense = 5408.0 * 64 + 64.0 * 10;
  const double step_flops = 64 * 2 * (2 * conv + 3 * dense);
  const double cnn_us = fit_steps_us(cnn, images, k::random::uniform({1024}, 0, 10, k::DType::int32, 8), 64).second;
  const double gflops = sgemm_gflops();
  std::printf("{\"case\": \"guide CNN compiled train step against the sgemm bound\", \"step_us\": %.1f, "
              "\"model_gflops\": %.2f, \"sgemm_gflops\": %.2f, \"fraction_of_sgemm_bound\": %.3f}\n",
              cnn_us, step_flops / cnn_us / 1e3, gflops, step_flops / cnn_us / 1e3 / gflops);
  bench_resnet50_trace();
  return 0;
}
