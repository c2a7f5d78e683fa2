// Checkpoint / CheckpointManager (tf.train.Checkpoint analogue), including
// deferred restore into variables created after restore().
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "kiln/io/checkpoint.h"
#include "saving_util.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_checkpoint {

using namespace kiln;
namespace L = kiln::layers;
using saving_test::tmp;

namespace {
std::shared_ptr<Sequential> mlp(bool with_input = true) {
  std::vector<LayerPtr> ls;
  if (with_input) ls.push_back(L::Input({4}));
  ls.push_back(L::Dense(8, {.activation = "relu"}));
  ls.push_back(L::Dense(2));
  auto m = std::make_shared<Sequential>(ls);
  m->compile({.optimizer = "adam", .loss = "mse"});
  return m;
}
double max_weight_diff(const Model& a, const Model& b) {
  auto wa = a.weights(), wb = b.weights();
  if (wa.size() != wb.size()) return INFINITY;
  double d = 0;
  for (std::size_t i = 0; i < wa.size(); ++i) d = std::max(d, saving_test::max_abs_diff(wa[i].value(), wb[i].value()));
  return d;
}
}  // namespace

TEST_CASE("CheckpointManager: numbered saves, max_to_keep, latest_checkpoint, restore") {
  saving_test::ensure_layers();
  random::set_seed(4);
  auto m = mlp();
  Tensor x = random::uniform({16, 4}), y = random::uniform({16, 2});
  Variable step(Tensor(int64_t{0}), {.name = "step", .trainable = false});
  Checkpoint ckpt({{"model", *m}, {"optimizer", m->optimizer()}, {"step", step}});
  const std::string dir = tmp("ckpts");
  CheckpointManager manager(ckpt, dir, {.max_to_keep = 2});
  CHECK(manager.latest_checkpoint().empty());
  CHECK(ckpt.restore(manager.latest_checkpoint()).pending() == 0);  // nothing yet: a no-op
  for (int i = 1; i <= 3; ++i) {
    m->fit(x, y, {.batch_size = 8, .epochs = 1, .verbose = 0, .shuffle = false});
    step.assign(Tensor(int64_t{i}));
    const std::string p = manager.save();
    CHECK(p == dir + "/ckpt-" + std::to_string(i) + ".h5");
  }
  CHECK(manager.checkpoints().size() == 2);
  CHECK(!std::filesystem::exists(dir + "/ckpt-1.h5"));
  CHECK(manager.latest_checkpoint() == dir + "/ckpt-3.h5");
  CHECK(checkpoint::latest_checkpoint(dir) == dir + "/ckpt-3.h5");

  // A second manager on the same folder sees the same history.
  CheckpointManager again(ckpt, dir, {.max_to_keep = 2});
  CHECK(again.latest_checkpoint() == dir + "/ckpt-3.h5");

  // Restore into a fresh model + optimizer: weights, slots, iterations and the step.
  auto r = mlp();
  Variable step2(Tensor(int64_t{0}), {.name = "step", .trainable = false});
  Checkpoint ckpt2({{"model", r}, {"optimizer", r->optimizer()}, {"step", step2}});
  auto status = ckpt2.restore(manager.latest_checkpoint());
  CHECK(status.pending() == 0);  // the optimizer was built from the model right away
  CHECK_NOTHROW(status.assert_consumed());
  CHECK(max_weight_diff(*m, *r) == 0);
  CHECK(step2.value().item<int64_t>() == 3);
  CHECK(ckpt2.save_counter() == 3);
  CHECK(r->optimizer()->iterations() == m->optimizer()->iterations());
  // ... and training continues identically.
  m->fit(x, y, {.batch_size = 8, .epochs = 1, .verbose = 0, .shuffle = false});
  r->fit(x, y, {.batch_size = 8, .epochs = 1, .verbose = 0, .shuffle = false});
  CHECK(max_weight_diff(*m, *r) <= 1e-7);
}

TEST_CASE("Checkpoint: deferred restore into layers built after restore()") {
  saving_test::ensure_layers();
  random::set_seed(5);
  auto m = mlp();
  m->fit(random::uniform({8, 4}), random::uniform({8, 2}), {.batch_size = 8, .epochs = 1, .verbose = 0});
  Checkpoint ckpt({{"model", m}, {"optimizer", m->optimizer()}});
  const std::string path = ckpt.write(tmp("deferred.h5"));

  auto lazy = mlp(/*with_input=*/false);  // no variables yet
  CHECK(lazy->weights().empty());
  Checkpoint c2({{"model", lazy}, {"optimizer", lazy->optimizer()}});
  auto status = c2.restore(path);
  CHECK(status.pending() > 0);
  CHECK_THROWS_AS(status.assert_consumed(), ValueError);
  lazy->build_for(Shape({None, 4}));  // the variables appear...
  CHECK(status.run_restore_ops() == 0);  // ...and receive the restored values
  CHECK(max_weight_diff(*m, *lazy) == 0);
  CHECK(lazy->optimizer()->iterations() == 1);
  CHECK(saving_test::max_abs_diff(lazy->predict(ones({1, 4})), m->predict(ones({1, 4}))) == 0);

  // Through fit(): restore_callback() applies what is pending when training starts.
  auto lazy2 = mlp(false);
  Checkpoint c3({{"model", lazy2}, {"optimizer", lazy2->optimizer()}});
  CHECK(c3.restore(path).pending() > 0);
  lazy2->build_for(Shape({None, 4}));
  lazy2->fit(ones({8, 4}), zeros({8, 2}), {.batch_size = 8, .epochs = 1, .verbose = 0, .callbacks = {c3.restore_callback()}});
  CHECK(lazy2->optimizer()->iterations() == 2);  // 1 restored + 1 step

  // Mismatches name the file, the object and the layer.
  Sequential wrong({L::Input({4}), L::Dense(9), L::Dense(2)});
  Checkpoint c4({{"model", wrong}});
  try {
    c4.restore(path);
    FAIL("expected a mismatch");
  } catch (const ValueError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("deferred.h5") != std::string::npos);
    CHECK(msg.find("'model'") != std::string::npos);
    CHECK(msg.find("dense") != std::string::npos);
  }
}

TEST_CASE("latest_checkpoint: an index entry the system cannot even look up (a 5000-character name) is absent") {
  const std::string dir = tmp("ckpt_long_entry");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    std::ofstream f(dir + "/checkpoint");
    f << R"({"all_model_checkpoint_paths": [")" << std::string(5000, 'a') << R"("], "model_checkpoint_path": ")"
      << std::string(5000, 'b') << R"("})";
  }
  CHECK(checkpoint::latest_checkpoint(dir).empty());
  CHECK(CheckpointManager(Checkpoint(std::map<std::string, CheckpointItem>{}), dir).latest_checkpoint().empty());
}

}  // namespace test_checkpoint
