// BackupAndRestore's commit: weights and epoch always belong together, and a
// run resumed after an interruption ends where an uninterrupted one does.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "kiln/callbacks/backup_and_restore.h"
#include "saving_util.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_backup_restore {

using namespace kiln;
namespace L = kiln::layers;
namespace C = kiln::callbacks;
using saving_test::tmp;
namespace fs = std::filesystem;

namespace {
std::shared_ptr<Sequential> small_model(bool dropout = false) {
  random::set_seed(31);
  std::vector<LayerPtr> layers{L::Input({3}), L::Dense(8, {.activation = "tanh"})};
  if (dropout) layers.push_back(L::Dropout(0.25));
  layers.push_back(L::Dense(1));
  auto m = std::make_shared<Sequential>(layers);
  m->compile({.optimizer = "adam", .loss = "mse"});
  return m;
}
struct XY {
  Tensor x, y;
};
XY regression_data() {
  random::set_seed(32);
  Tensor x = random::uniform({40, 3}, -1.0, 1.0);
  return {x, sum(x, {1}, true) * 0.5};
}
double max_weight_diff(const Model& a, const Model& b) {
  auto wa = a.weights(), wb = b.weights();
  REQUIRE(wa.size() == wb.size());
  double d = 0;
  for (std::size_t i = 0; i < wa.size(); ++i) d = std::max(d, saving_test::max_abs_diff(wa[i].value(), wb[i].value()));
  return d;
}
std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

// Fails the n-th backup (0-based) after its weights file is written and before
// the metadata commits it: the state a kill between the two steps leaves.
struct FailBeforeCommit : C::BackupAndRestore {
  FailBeforeCommit(C::BackupAndRestoreOptions o, int fail_at) : C::BackupAndRestore(std::move(o)), fail_at(fail_at) {}
  int fail_at;
  int backups = 0;
  void before_commit() override {
    if (backups++ == fail_at) throw IOError("simulated crash between the weights file and the metadata");
  }
};
}  // namespace

TEST_CASE("BackupAndRestore: a crash between writing the weights and the metadata resumes a consistent pair") {
  saving_test::ensure_layers();
  const auto d = regression_data();
  const FitOptions base{.batch_size = 10, .epochs = 4, .verbose = 0, .shuffle = false};
  auto ref = small_model();
  random::set_seed(33);
  ref->fit(d.x, d.y, base);

  const std::string dir = tmp("backup_commit");
  {
    // Epochs 0 and 1 commit; the backup after epoch 2 writes its weights, then "crashes".
    auto m = small_model();
    auto b = std::make_shared<FailBeforeCommit>(C::BackupAndRestoreOptions{.backup_dir = dir}, 2);
    FitOptions o = base;
    o.callbacks = {b};
    random::set_seed(33);
    CHECK_THROWS_AS(m->fit(d.x, d.y, o), IOError);
  }
  auto m = small_model();
  auto b = std::make_shared<C::BackupAndRestore>(C::BackupAndRestoreOptions{.backup_dir = dir, .delete_checkpoint = false});
  // The committed epoch is 2, and the weights restored are those written with it (after 2 epochs), not
  // the newer uncommitted file: resuming then ends exactly where the uninterrupted run ended.
  CHECK(b->initial_epoch() == 2);
  FitOptions o = base;
  o.callbacks = {b};
  o.initial_epoch = b->initial_epoch();
  auto hist = m->fit(d.x, d.y, o);
  CHECK(hist.epoch == std::vector<int>{2, 3});
  CHECK(max_weight_diff(*ref, *m) == 0);
  // The uncommitted file is gone after the next commit: one weights file and the metadata remain.
  const auto files = files_in(dir);
  CHECK(files.size() == 2);
  CHECK(files.count("training_metadata.json") == 1);
  CHECK(files.count(fs::path(b->weights_path()).filename().string()) == 1);
}

TEST_CASE("BackupAndRestore: double_checkpoint resumes from the previous backup when the latest is unreadable") {
  saving_test::ensure_layers();
  const auto d = regression_data();
  const FitOptions base{.batch_size = 10, .epochs = 4, .verbose = 0, .shuffle = false};
  auto ref = small_model();
  random::set_seed(34);
  ref->fit(d.x, d.y, base);

  const std::string dir = tmp("backup_double");
  const C::BackupAndRestoreOptions opts{.backup_dir = dir, .double_checkpoint = true, .delete_checkpoint = false};
  std::string latest;
  {
    auto m = small_model();
    auto b = std::make_shared<C::BackupAndRestore>(opts);
    FitOptions o = base;
    o.epochs = 3;
    o.callbacks = {b};
    random::set_seed(34);
    m->fit(d.x, d.y, o);
    latest = b->weights_path();
  }
  CHECK(files_in(dir).size() == 3);  // metadata, the latest and the previous weights
  std::ofstream(latest, std::ios::trunc) << "not an HDF5 file";
  auto m = small_model();
  auto b = std::make_shared<C::BackupAndRestore>(opts);
  FitOptions o = base;
  o.callbacks = {b};
  o.initial_epoch = b->initial_epoch();
  auto hist = m->fit(d.x, d.y, o);
  CHECK(hist.epoch == std::vector<int>{2, 3});  // the previous backup was taken after epoch 2 (index 1)
  CHECK(max_weight_diff(*ref, *m) == 0);
}

TEST_CASE("BackupAndRestore: with shuffle and Dropout, an interrupted run resumed ends bit-exactly as an uninterrupted one") {
  saving_test::ensure_layers();
  const auto d = regression_data();
  const FitOptions base{.batch_size = 10, .epochs = 5, .verbose = 0, .shuffle = true};
  auto ref = small_model(/*dropout=*/true);
  random::set_seed(35);
  ref->fit(d.x, d.y, base);

  const std::string dir = tmp("backup_random");
  struct Interrupt : Callback {
    int epoch = 0;
    void on_epoch_begin(int e, const Logs&) override { epoch = e; }
    void on_train_batch_end(int batch, const Logs&) override {
      if (epoch == 3 && batch == 1) throw RuntimeError("interrupted in the middle of epoch 3");
    }
  };
  {
    auto m = small_model(true);
    auto b = std::make_shared<C::BackupAndRestore>(C::BackupAndRestoreOptions{.backup_dir = dir});
    FitOptions o = base;
    o.callbacks = {b, std::make_shared<Interrupt>()};
    random::set_seed(35);
    CHECK_THROWS_AS(m->fit(d.x, d.y, o), RuntimeError);
  }
  // The restarted script: same model code, same seed; epochs 0-2 are in the backup.
  auto m = small_model(true);
  auto b = std::make_shared<C::BackupAndRestore>(C::BackupAndRestoreOptions{.backup_dir = dir});
  FitOptions o = base;
  o.callbacks = {b};
  o.initial_epoch = b->initial_epoch();
  CHECK(o.initial_epoch == 3);
  random::set_seed(35);
  auto hist = m->fit(d.x, d.y, o);
  CHECK(hist.epoch == std::vector<int>{3, 4});
  CHECK(max_weight_diff(*ref, *m) == 0);
  CHECK(m->optimizer()->iterations() == ref->optimizer()->iterations());

  // The state is what matters: the same run resumed without it (a metadata written before it was saved) differs.
  auto plain = small_model(true);
  random::set_seed(35);
  FitOptions first = base;
  first.epochs = 3;
  plain->fit(d.x, d.y, first);
  random::set_seed(35);  // a fresh process: the generator starts over instead of going on
  FitOptions rest = base;
  rest.initial_epoch = 3;
  plain->fit(d.x, d.y, rest);
  CHECK(max_weight_diff(*ref, *plain) > 1e-4);
}

TEST_CASE("random::get_state / set_state: the generator goes on exactly where it was") {
  random::set_seed(7);
  (void)random::next_seed();
  const std::string state = random::get_state();
  const uint64_t a = random::next_seed();
  const std::vector<double> u = random::uniform({5}).to_vector<double>();
  random::set_seed(123);
  random::set_state(state);
  CHECK(random::next_seed() == a);
  CHECK(random::uniform({5}).to_vector<double>() == u);
  CHECK_THROWS_AS(random::set_state("not a state"), ValueError);
  CHECK_THROWS_AS(random::set_state(state + " 5"), ValueError);
}

}  // namespace test_backup_restore
