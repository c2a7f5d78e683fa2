// An optimizer whose step is fused kernels (SGD, Adam, AdamW, RMSprop) is
// recorded into a trace as those kernels, with its step sizes computed on the
// host before each replay: replays follow a learning-rate schedule, bias
// corrections and weight decay exactly as eager steps do.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <functional>
#include <string>
#include <vector>

namespace k = kiln;
namespace O = kiln::optimizers;

namespace {

using MakeOptimizer = std::function<k::OptimizerPtr()>;

/// Weights after `steps` training steps, eager or replayed.
std::vector<float> train(const MakeOptimizer& make, bool traced, int steps, std::string* ops = nullptr) {
  k::clear_session();
  k::random::set_seed(9);
  auto dense = k::layers::Dense(5);
  auto opt = make();
  auto step = [&](const k::Tensor& x, const k::Tensor& y) {
    k::GradientTape tape;
    k::Tensor loss = k::mean(k::square(dense(x, true) - y));
    auto vars = dense->trainable_variables();
    opt->apply(tape.gradient(loss, vars), vars);
    return loss;
  };
  auto compiled = k::function(step, {.name = "train_step"});
  for (int i = 0; i < steps; ++i) {
    k::Tensor x = k::random::normal({7, 3}, 0, 1, k::DType::float32, 40 + i);
    k::Tensor y = k::random::normal({7, 5}, 0, 1, k::DType::float32, 80 + i);
    traced ? compiled(x, y) : step(x, y);
  }
  if (traced) CHECK(compiled.tracing_count() == 1);
  if (ops) {
    const k::ConcreteFunction cf = compiled.get_concrete_function(k::TensorSpec({7, 3}), k::TensorSpec({7, 5}));
    for (const auto& op : cf.executed_operations())
      *ops += op.type + " ";
  }
  std::vector<float> out;
  for (const auto& v : dense->trainable_variables()) {
    auto w = v.read_value_untracked().to_vector<float>();
    out.insert(out.end(), w.begin(), w.end());
  }
  out.push_back(static_cast<float>(opt->iterations()));
  return out;
}

}  // namespace

TEST_CASE("traced optimizers: fused steps replay as kernels, bit for bit with eager under a schedule") {
  const O::schedules::ExponentialDecay decay(0.05, 2, 0.5);  // the rate halves every 2 steps
  const std::vector<std::pair<std::string, MakeOptimizer>> cases = {
      {"SGD", [&] { return k::OptimizerPtr(std::make_shared<O::SGD>(O::SGDOptions{.learning_rate = decay})); }},
      {"SGD nesterov", [&] {
         return k::OptimizerPtr(std::make_shared<O::SGD>(
             O::SGDOptions{.learning_rate = decay, .momentum = 0.9, .nesterov = true, .base = {.clipnorm = 0.5}}));
       }},
      {"Adam amsgrad", [&] {
         return k::OptimizerPtr(std::make_shared<O::Adam>(O::AdamOptions{.learning_rate = decay, .amsgrad = true}));
       }},
      {"AdamW", [&] {
         return k::OptimizerPtr(std::make_shared<O::AdamW>(O::AdamWOptions{.learning_rate = decay, .weight_decay = 0.1}));
       }},
      {"RMSprop centered", [&] {
         return k::OptimizerPtr(std::make_shared<O::RMSprop>(
             O::RMSpropOptions{.learning_rate = decay, .momentum = 0.5, .centered = true, .base = {.clipvalue = 0.1}}));
       }},
  };
  for (const auto& one : cases) {
    const std::string& name = one.first;  // not a structured binding: CAPTURE's lambda takes it
    const MakeOptimizer& make = one.second;
    CAPTURE(name);
    const auto eager = train(make, false, 7);
    std::string ops;
    const auto graph = train(make, true, 7, &ops);
    CHECK(graph == eager);  // bit for bit: the same kernels with the same step sizes
    CHECK(eager.back() == 7.f);
    CAPTURE(ops);
    CHECK(ops.find("OptimizerStepSizes") != std::string::npos);
    CHECK(ops.find("OptimizerApply") == std::string::npos);  // not one opaque host step
    CHECK(ops.find("ResourceApply") != std::string::npos);
  }
}

TEST_CASE("traced optimizers: a step a record would freeze stays one host step, still equal to eager") {
  // EMA decides on the host from the step count; global_clipnorm sums norms on the host.
  const std::vector<std::pair<std::string, MakeOptimizer>> cases = {
      {"Adam use_ema", [] {
         return k::OptimizerPtr(std::make_shared<O::Adam>(O::AdamOptions{.base = {.use_ema = true, .ema_overwrite_frequency = 3}}));
       }},
      {"SGD global_clipnorm", [] {
         return k::OptimizerPtr(std::make_shared<O::SGD>(O::SGDOptions{.base = {.global_clipnorm = 0.1}}));
       }},
  };
  for (const auto& one : cases) {
    const std::string& name = one.first;  // not a structured binding: CAPTURE's lambda takes it
    const MakeOptimizer& make = one.second;
    CAPTURE(name);
    const auto eager = train(make, false, 5);
    std::string ops;
    const auto graph = train(make, true, 5, &ops);
    CHECK(graph == eager);
    CHECK(ops.find("OptimizerApply") != std::string::npos);
  }
}
