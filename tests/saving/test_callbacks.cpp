// ModelCheckpoint and BackupAndRestore, including a training process killed
// with SIGKILL mid-epoch and restarted.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "kiln/callbacks/backup_and_restore.h"
#include "kiln/callbacks/model_checkpoint.h"
#include "saving_util.h"
#include "test_util.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_callbacks {

using namespace kiln;
namespace L = kiln::layers;
namespace C = kiln::callbacks;
using saving_test::tmp;
namespace fs = std::filesystem;

TEST_CASE("format_filepath follows Python's str.format for Keras file names") {
  using C::format_filepath;
  std::map<std::string, C::FormatValue> v{{"epoch", int64_t{3}}, {"val_loss", 0.41234}, {"acc", 0.5}, {"batch", int64_t{12}}};
  CHECK(format_filepath("ckpt-{epoch:02d}-{val_loss:.2f}.keras", v) == "ckpt-03-0.41.keras");
  CHECK(format_filepath("e{epoch}_b{batch:04d}.h5", v) == "e3_b0012.h5");
  CHECK(format_filepath("{val_loss}", v) == "0.41234");           // str(float)
  CHECK(format_filepath("{acc}", v) == "0.5");
  CHECK(format_filepath("{acc:.1%}", v) == "50.0%");
  CHECK(format_filepath("{val_loss:.3e}", v) == "4.123e-01");
  CHECK(format_filepath("{val_loss:8.3f}|", v) == "   0.412|");
  CHECK(format_filepath("{val_loss:<8.3f}|", v) == "0.412   |");
  CHECK(format_filepath("{epoch:*^7d}", v) == "***3***");
  CHECK(format_filepath("{epoch:+d}", v) == "+3");
  CHECK(format_filepath("{val_loss:.3g}", v) == "0.412");
  CHECK(format_filepath("{epoch:.2f}", v) == "3.00");             // ints take float formats
  CHECK(format_filepath("{{literal}}-{epoch}", v) == "{literal}-3");
  CHECK_THROWS_AS(format_filepath("{val_acc:.2f}", v), ValueError);  // Python: KeyError
  CHECK_THROWS_AS(format_filepath("{val_loss:d}", v), ValueError);   // Unknown format code 'd' for float
  CHECK_THROWS_AS(format_filepath("{epoch", v), ValueError);
}

namespace {
std::shared_ptr<Sequential> tiny() {
  random::set_seed(21);
  auto m = std::make_shared<Sequential>(std::vector<LayerPtr>{L::Input({3}), L::Dense(4, {.activation = "tanh"}), L::Dense(1)});
  m->compile({.optimizer = "sgd", .loss = "mse"});
  return m;
}
struct XY {
  Tensor x, y;
};
XY data() {
  random::set_seed(22);
  Tensor x = random::uniform({40, 3}, -1.0, 1.0);
  return {x, sum(x, {1}, true) * 0.5};
}
double weight_diff(const Model& a, const Model& b) {
  auto wa = a.weights(), wb = b.weights();
  double d = 0;
  for (std::size_t i = 0; i < wa.size(); ++i) d = std::max(d, saving_test::max_abs_diff(wa[i].value(), wb[i].value()));
  return d;
}
}  // namespace

TEST_CASE("ModelCheckpoint: every epoch, save_best_only, save_weights_only, save_freq in batches") {
  saving_test::ensure_layers();
  auto d = data();
  const std::string dir = tmp("mc");
  {
    auto m = tiny();
    auto cb = std::make_shared<C::ModelCheckpoint>(C::ModelCheckpointOptions{.filepath = dir + "/ckpt-{epoch:02d}-{val_loss:.2f}.keras"});
    m->fit(d.x, d.y, {.batch_size = 10, .epochs = 3, .verbose = 0, .callbacks = {cb}, .validation_split = 0.25});
    REQUIRE(cb->saved.size() == 3);
    CHECK(cb->saved[0].find("/ckpt-01-") != std::string::npos);
    CHECK(cb->saved[2].find("/ckpt-03-") != std::string::npos);
    for (const auto& p : cb->saved) CHECK(fs::exists(p));
    auto last = models::load_model(cb->saved.back());
    CHECK(weight_diff(*m, *last) == 0);
  }
  {
    // Monitor "loss" going down every epoch: each epoch is an improvement; with a
    // threshold below every value nothing is saved.
    auto m = tiny();
    auto best = std::make_shared<C::ModelCheckpoint>(
        C::ModelCheckpointOptions{.filepath = dir + "/best.weights.h5", .monitor = "loss", .save_best_only = true,
                                  .save_weights_only = true});
    auto never = std::make_shared<C::ModelCheckpoint>(C::ModelCheckpointOptions{
        .filepath = dir + "/never.keras", .monitor = "loss", .save_best_only = true, .initial_value_threshold = -1.0});
    auto hist = m->fit(d.x, d.y, {.batch_size = 10, .epochs = 3, .verbose = 0, .callbacks = {best, never}});
    const auto& losses = hist.history.at("loss");
    int improvements = 0;
    double b = INFINITY;
    for (double l : losses)
      if (l < b) b = l, ++improvements;
    CHECK(best->saved.size() == static_cast<std::size_t>(improvements));
    CHECK(best->best == doctest::Approx(b));
    CHECK(never->saved.empty());
    CHECK(!fs::exists(dir + "/never.keras"));
    auto r = tiny();
    r->load_weights(dir + "/best.weights.h5");
    CHECK(weight_diff(*m, *r) == 0);  // the last epoch was the best
  }
  {
    auto m = tiny();
    auto cb = std::make_shared<C::ModelCheckpoint>(
        C::ModelCheckpointOptions{.filepath = dir + "/b{epoch}-{batch}.keras", .save_freq = 3});
    m->fit(d.x, d.y, {.batch_size = 10, .epochs = 2, .verbose = 0, .callbacks = {cb}});  // 4 batches per epoch
    CHECK(cb->saved == std::vector<std::string>{dir + "/b1-3.keras", dir + "/b2-2.keras"});
  }
  CHECK_THROWS_AS(C::ModelCheckpoint({.filepath = "x.weights.h5"}), ValueError);  // not save_weights_only
  CHECK_THROWS_AS(C::ModelCheckpoint({.filepath = "x.keras", .save_weights_only = true}), ValueError);
  {
    // Keras's positional path: ModelCheckpoint("best.keras", save_best_only=True).
    auto m = tiny();
    auto cb = std::make_shared<C::ModelCheckpoint>(dir + "/positional.keras", C::ModelCheckpointOptions{.monitor = "loss"});
    m->fit(d.x, d.y, {.batch_size = 10, .epochs = 1, .verbose = 0, .callbacks = {cb}});
    CHECK(cb->saved == std::vector<std::string>{dir + "/positional.keras"});
    CHECK(fs::exists(dir + "/positional.keras"));
  }
  CHECK_THROWS_AS(C::ModelCheckpoint("x.weights.h5"), ValueError);  // the same checks as the options form
  CHECK_NOTHROW(C::ModelCheckpoint("same.keras", {.filepath = "same.keras"}));
  const std::string twice = kiln_test::message_of([] { C::ModelCheckpoint("a.keras", {.filepath = "b.keras"}); });
  CHECK(twice == "ModelCheckpoint: `filepath` was given twice, as the first argument ('a.keras') and in the options "
                 "('b.keras')");
  const std::string backup_twice = kiln_test::message_of([] { C::BackupAndRestore("a", {.backup_dir = "b"}); });
  CHECK(backup_twice.find("BackupAndRestore: `backup_dir` was given twice") == 0);
  CHECK(C::BackupAndRestore("some_dir").initial_epoch() == 0);
}

TEST_CASE("BackupAndRestore: a run SIGKILLed mid-epoch resumes to the same weights") {
  saving_test::ensure_layers();
  auto d = data();
  const int epochs = 4;
  // Reference: uninterrupted.
  auto ref = tiny();
  ref->fit(d.x, d.y, {.batch_size = 10, .epochs = epochs, .verbose = 0});  // shuffled

  const std::string backup = tmp("backup");
  const std::string flag = tmp("child_in_epoch_2");
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // Child: train with backups; in the middle of epoch 3 (index 2) tell the
    // parent and wait to be killed.
    auto m = tiny();
    auto b = std::make_shared<C::BackupAndRestore>(C::BackupAndRestoreOptions{.backup_dir = backup});
    struct Stall : Callback {
      std::string flag;
      int epoch = 0;
      void on_epoch_begin(int e, const Logs&) override { epoch = e; }
      void on_train_batch_end(int batch, const Logs&) override {
        if (epoch == 2 && batch == 1) {
          std::ofstream(flag) << "x";
          for (;;) pause();
        }
      }
    };
    auto stall = std::make_shared<Stall>();
    stall->flag = flag;
    try {
      m->fit(d.x, d.y, {.batch_size = 10, .epochs = epochs, .verbose = 0, .callbacks = {b, stall}});
    } catch (...) {
    }
    _exit(3);  // not reached when killed
  }
  // Parent: wait for the child to be mid-epoch, then SIGKILL it.
  for (int i = 0; i < 3000 && !fs::exists(flag); ++i) usleep(10000);
  REQUIRE(fs::exists(flag));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(fs::exists(backup + "/training_metadata.json"));

  // Restart: same script, same callback; it resumes at epoch 2.
  auto m = tiny();
  auto b = std::make_shared<C::BackupAndRestore>(C::BackupAndRestoreOptions{.backup_dir = backup});
  CHECK(b->initial_epoch() == 2);
  auto hist = m->fit(d.x, d.y, {.batch_size = 10, .epochs = epochs, .verbose = 0, .callbacks = {b},
                                .initial_epoch = b->initial_epoch()});
  CHECK(hist.epoch == std::vector<int>{2, 3});
  const double diff = weight_diff(*ref, *m);
  MESSAGE("resumed vs uninterrupted: max |delta| = " << diff);
  CHECK(diff == 0);  // the shuffle order goes on from the backup
  CHECK(m->optimizer()->iterations() == ref->optimizer()->iterations());
  CHECK(!fs::exists(backup));  // deleted after a normal end
}

}  // namespace test_callbacks
