// The TF2 guides' checkpoint snippets (eager execution, "Object-based saving"),
// with the values TensorFlow prints.
#include <doctest/doctest.h>

#include <filesystem>

#include "kiln/io/checkpoint.h"
#include "kiln/optimizers.h"
#include "saving_util.h"

using namespace kiln;
namespace L = kiln::layers;
using saving_test::tmp;

namespace {
std::shared_ptr<Sequential> guide_model() {
  // The guide's model, without an Input: it builds at its first call.
  return std::make_shared<Sequential>(std::vector<LayerPtr>{
      L::Conv2D(16, 3, {.activation = "relu"}), L::GlobalAveragePooling2D(), L::Dense(10)});
}

double max_diff(const std::vector<Variable>& a, const std::vector<Variable>& b) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, saving_test::max_abs_diff(a[i].value(), b[i].value()));
  return d;
}

void train_step(Sequential& model, Optimizer& opt, const Tensor& x, const Tensor& y) {
  GradientTape tape;
  Tensor loss = mean(square(model(x, true) - y));
  auto vars = model.trainable_variables();
  opt.apply(tape.gradient(loss, vars), vars);
}
}  // namespace

TEST_CASE("guide: x = 2, save('./ckpt/'), x = 11, restore(latest_checkpoint) -> 2.0") {
  const std::string dir = tmp("guide_x/ckpt/");  // the folder does not exist yet: save creates it
  Variable x(Tensor(10.0f));
  Checkpoint checkpoint({{"x", x}});
  x.assign(Tensor(2.0f));
  const std::string path = checkpoint.save(dir);
  CHECK(path == dir + "-1.h5");  // TensorFlow: './ckpt/-1'
  CHECK(std::filesystem::exists(dir + "checkpoint"));
  x.assign(Tensor(11.0f));
  CHECK(checkpoint::latest_checkpoint(dir) == path);
  checkpoint.restore(checkpoint::latest_checkpoint(dir));
  CHECK(x.value().item<float>() == 2.0f);
  // A second save is the latest one.
  x.assign(Tensor(3.0f));
  CHECK(checkpoint.save(dir) == dir + "-2.h5");
  x.assign(Tensor(4.0f));
  checkpoint.restore(checkpoint::latest_checkpoint(dir));
  CHECK(x.value().item<float>() == 3.0f);
}

TEST_CASE("guide: root.save(prefix); a model and optimizer created later restore as soon as they build") {
  saving_test::ensure_layers();
  random::set_seed(11);
  const std::string dir = tmp("guide_model/path/to/model_dir");
  Tensor x = random::uniform({4, 6, 6, 1}), y = random::uniform({4, 10});

  auto model = guide_model();
  auto optimizer = std::make_shared<optimizers::Adam>(optimizers::AdamOptions{.learning_rate = 0.001});
  train_step(*model, *optimizer, x, y);
  Checkpoint root({{"optimizer", optimizer}, {"model", model}});  // a shared_ptr<Adam> as it is
  root.save(dir + "/ckpt");

  // A fresh model and optimizer: nothing is built when restore() runs.
  auto model2 = guide_model();
  auto optimizer2 = std::make_shared<optimizers::Adam>(optimizers::AdamOptions{.learning_rate = 0.001});
  CheckpointStatus status = Checkpoint({{"optimizer", optimizer2}, {"model", model2}})
                                .restore(checkpoint::latest_checkpoint(dir));
  CHECK(status.pending() > 0);
  Tensor before = (*model2)(x);  // builds, and the saved weights land before the call computes
  CHECK(max_diff(model2->weights(), model->weights()) == 0);
  CHECK(saving_test::max_abs_diff(before, (*model)(x)) == 0);
  // The optimizer's slots land when it creates them, before its first update:
  // one more step on each gives the same weights.
  train_step(*model, *optimizer, x, y);
  train_step(*model2, *optimizer2, x, y);
  CHECK(optimizer2->iterations() == 2);
  CHECK(max_diff(model2->weights(), model->weights()) == 0);
  status.assert_consumed();
}

namespace {
class Linear : public Module {
 public:
  Linear() : Module("linear") {
    w = add_variable(Tensor(std::vector<float>{1, 2, 3}, Shape{3}), {.name = "w"});
    b = add_variable(Tensor(0.5f), {.name = "b"});
  }
  Variable w, b;
};
}  // namespace

TEST_CASE("Checkpoint takes a kiln::Module, names with '/', and list_variables shows what a file holds") {
  auto module = std::make_shared<Linear>();
  Variable step(Tensor(int64_t{7}), {.name = "step", .trainable = false});
  Checkpoint ckpt({{"model", module}, {"train/step", step}});
  const std::string path = ckpt.save(tmp("module_ckpt/ckpt"));
  module->w.assign(zeros({3}));
  module->b.assign(Tensor(9.0f));
  step.assign(Tensor(int64_t{0}));
  ckpt.restore(path);
  CHECK(module->w.value().to_vector<float>() == std::vector<float>{1, 2, 3});
  CHECK(module->b.value().item<float>() == 0.5f);
  CHECK(step.value().item<int64_t>() == 7);

  const auto vars = checkpoint::list_variables(path);
  std::vector<std::string> names;
  for (const auto& v : vars) names.push_back(v.name);
  CHECK(names == std::vector<std::string>{"model/vars/0", "model/vars/1", "save_counter", "train/step"});
  CHECK(vars[0].shape == Shape{3});
  CHECK(vars[1].shape == Shape{});

  CHECK_THROWS_WITH_AS(Checkpoint({{"a/", step}}), doctest::Contains("invalid object name 'a/'"), ValueError);
  CHECK_THROWS_WITH_AS(Checkpoint({{"a", step}, {"a/b", step}}), doctest::Contains("is a folder of object 'a/b'"),
                       ValueError);
}
