// LossScaleOptimizer: Keras's variables and their order, unscaled steps through
// the inner optimizer, a skipped step and a halved scale on a non-finite
// gradient and recovery after it, growth every dynamic_growth_steps, compile's
// wrapping under mixed_float16, and its state and config through a .keras file.
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "../test_util.h"
#include "helpers.h"
#include "kiln/optimizers/all.h"
#include "kiln/training/loss_scale_optimizer.h"

using namespace kiln::optimizers;
using opt_test::check_close;
using opt_test::make_var;
using opt_test::values;
using opt_test::vec;

namespace {
std::shared_ptr<kiln::LossScaleOptimizer> wrap(kiln::OptimizerPtr inner, int64_t growth = 2000) {
  return std::make_shared<kiln::LossScaleOptimizer>(inner, kiln::LossScaleOptimizerOptions{.dynamic_growth_steps = growth});
}
}  // namespace

TEST_CASE("LossScaleOptimizer has Keras's variables, in Keras's order, and its defaults") {
  auto lso = wrap(std::make_shared<Adam>());
  kiln::Variable w = make_var({1.0, 2.0}, "w");
  lso->build({w});
  std::vector<std::string> paths;
  for (const auto& v : lso->variables()) paths.push_back(v.path());
  CHECK(paths == std::vector<std::string>{"loss_scale_optimizer/iteration", "loss_scale_optimizer/learning_rate",
                                          "loss_scale_optimizer/step_counter", "loss_scale_optimizer/dynamic_scale",
                                          "adam/iteration", "adam/learning_rate", "adam/w_momentum", "adam/w_velocity"});
  CHECK(lso->variables()[2].dtype() == kiln::int32);
  CHECK(lso->dynamic_scale() == 32768.0);
  CHECK(lso->step_counter() == 0);
  CHECK(lso->learning_rate() == doctest::Approx(0.001));
  CHECK(lso->name() == "loss_scale_optimizer");
  CHECK(kiln_test::contains(kiln_test::message_of<kiln::ValueError>([&] { wrap(lso); }), "already a LossScaleOptimizer"));
}

TEST_CASE("a finite step divides the scale out and steps the inner optimizer; growth doubles the scale") {
  auto lso = wrap(std::make_shared<SGD>(SGDOptions{.learning_rate = 0.5}), 3);
  kiln::Variable w = make_var({1.0, -1.0}, "w");
  const double scale = lso->dynamic_scale();
  CHECK(lso->scale_loss(kiln::Tensor(2.0f)).item<double>() == 2.0 * 32768.0);
  lso->apply({vec({0.5 * scale, -2.0 * scale})}, {w});  // gradients of the scaled loss
  check_close(values(w), {1.0 - 0.25, -1.0 + 1.0});
  CHECK(lso->iterations() == 1);
  CHECK(lso->step_counter() == 1);
  lso->apply({vec({0.0, 0.0})}, {w});
  CHECK(lso->step_counter() == 2);
  CHECK(lso->dynamic_scale() == 32768.0);
  lso->apply({vec({0.0, 0.0})}, {w});  // the third finite step in a row
  CHECK(lso->step_counter() == 0);
  CHECK(lso->dynamic_scale() == 65536.0);
  CHECK(lso->scale_loss(kiln::Tensor(1.0f)).item<double>() == 65536.0);
}

TEST_CASE("a non-finite gradient skips the step and halves the scale; training recovers") {
  auto lso = wrap(std::make_shared<SGD>(SGDOptions{.learning_rate = 1.0}));
  kiln::Variable w = make_var({1.0, 2.0}, "w");
  lso->apply({vec({1.0, 1.0})}, {w});
  check_close(values(w), {1.0 - 1.0 / 32768, 2.0 - 1.0 / 32768});
  const auto before = values(w);
  for (double bad : {std::numeric_limits<double>::infinity(), std::nan("")}) {
    lso->apply({vec({bad, 1.0})}, {w});
    CHECK(values(w) == before);  // skipped: not even the finite element moved
  }
  CHECK(lso->iterations() == 1);  // the inner optimizer did not step
  CHECK(lso->dynamic_scale() == 8192.0);
  CHECK(lso->step_counter() == 0);
  lso->apply({vec({8192.0, 0.0})}, {w});
  check_close(values(w), {before[0] - 1.0, before[1]});
  CHECK(lso->iterations() == 2);
  CHECK(lso->step_counter() == 1);
}

TEST_CASE("config round trip, and Keras's rejections") {
  kiln::LossScaleOptimizer lso(std::make_shared<Adam>(AdamOptions{.learning_rate = 0.01}),
                               {.initial_scale = 1024, .dynamic_growth_steps = 10});
  const kiln::Config c = serialize(lso);
  CHECK(c["class_name"] == "LossScaleOptimizer");
  CHECK(c["config"]["inner_optimizer"]["class_name"] == "Adam");
  CHECK(c["config"]["initial_scale"].get<double>() == 1024.0);
  auto back = from_config(c);
  auto* lb = dynamic_cast<kiln::LossScaleOptimizer*>(back.get());
  REQUIRE(lb != nullptr);
  CHECK(lb->dynamic_scale() == 1024.0);
  CHECK(lb->learning_rate() == doctest::Approx(0.01));
  CHECK(lb->get_config()["dynamic_growth_steps"] == 10);
  kiln::Config with = c;
  with["config"]["clipnorm"] = 1.0;
  CHECK(kiln_test::message_of<kiln::ValueError>([&] { from_config(with); }) ==
        "LossScaleOptimizer does not support `clipnorm`. Instead, set `clipnorm` on the `inner_optimizer`.");
  with = c;
  with["config"]["use_ema"] = false;  // older Keras wrote the defaults
  CHECK(from_config(with) != nullptr);
  with["config"]["momentum"] = 0.5;
  CHECK(kiln_test::message_of<kiln::ValueError>([&] { from_config(with); }) ==
        "LossScaleOptimizer does not support arguments: `momentum`.");
}

TEST_CASE("compile wraps the optimizer under mixed_float16 only, and fit trains through the loss scale") {
  namespace L = kiln::layers;
  auto make = [](const std::string& policy) {
    kiln::mixed_precision::set_global_policy(policy);
    auto m = std::make_shared<kiln::Sequential>(std::vector<kiln::LayerPtr>{
        L::Input({4}), L::Dense(16, {.activation = "relu"}), L::Dense(1, {.dtype = "float32"})});
    kiln::mixed_precision::set_global_policy("float32");
    return m;
  };
  auto bf = make("mixed_bfloat16");
  bf->compile({.optimizer = "sgd", .loss = "mse"});
  CHECK(bf->optimizer()->class_name() == "SGD");
  auto off = make("mixed_float16");
  off->compile({.optimizer = "sgd", .loss = "mse", .auto_scale_loss = false});
  CHECK(off->optimizer()->class_name() == "SGD");
  auto m = make("mixed_float16");
  m->compile({.optimizer = Adam({.learning_rate = 0.1}), .loss = "mse"});
  REQUIRE(m->optimizer()->class_name() == "LossScaleOptimizer");
  CHECK(m->optimizer()->name() == "loss_scale_optimizer");
  const kiln::Tensor x = kiln::random::normal({64, 4}, 0, 1, kiln::float32, 3);
  // Targets around 100: the first float16 backward passes of loss * 32768 overflow.
  const kiln::Tensor y = kiln::sum(x, std::vector<int>{1}, true) * 3.0 + 100.0;
  auto h = m->fit(x, y, {.batch_size = 16, .epochs = 40, .verbose = 0});
  const auto& loss = h.history["loss"];
  for (double l : loss) CHECK(std::isfinite(l));
  CHECK(loss.back() < 0.5 * loss.front());
  auto* lso = dynamic_cast<kiln::LossScaleOptimizer*>(m->optimizer().get());
  CHECK(lso->dynamic_scale() < 32768.0);  // overflows halved it
  CHECK(lso->iterations() < 40 * 4);      // and their steps were skipped
  CHECK(lso->iterations() > 100);
  for (const auto& w : m->weights()) {
    CHECK(w.dtype() == kiln::float32);
    for (double v : kiln::cast(w.value(), kiln::float64).to_vector<double>()) CHECK(std::isfinite(v));
  }
  // The file keeps the loss scale state, and the inner optimizer under optimizer/inner_optimizer.
  const auto dir = std::filesystem::temp_directory_path() / "kiln_test_lso";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "lso.keras").string();
  m->save(path);
  auto loaded = kiln::models::load_model(path);
  auto* ll = dynamic_cast<kiln::LossScaleOptimizer*>(loaded->optimizer().get());
  REQUIRE(ll != nullptr);
  CHECK(ll->dynamic_scale() == lso->dynamic_scale());
  CHECK(ll->step_counter() == lso->step_counter());
  CHECK(ll->iterations() == lso->iterations());
  CHECK(loaded->layers()[0]->dtype_policy().name() == "mixed_float16");
}
