// EarlyStopping: the epoch it stops at and the weights it restores, against
// Keras 3's algorithm worked by hand (keras/src/callbacks/early_stopping.py).
#include <doctest/doctest.h>

#include <type_traits>
#include <vector>

#include "callback_test_utils.h"
#include "kiln/callbacks/early_stopping.h"
#include "kiln/callbacks/lambda_callback.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_early_stopping {

namespace cb = kiln::callbacks;
using cbtest::get_w;
using cbtest::set_wb;

namespace {
/// Replays fit's epoch loop: before each epoch end the weights are set to the
/// epoch number, so a restore tells which epoch it came from.
/// Returns the number of epochs run.
int drive(cb::EarlyStopping& es, kiln::Model& m, const std::string& key, const std::vector<double>& values) {
  es.set_model(&m);
  m.stop_training = false;
  es.on_train_begin({});
  int run = 0;
  for (int epoch = 0; epoch < static_cast<int>(values.size()); ++epoch) {
    es.on_epoch_begin(epoch, {});
    set_wb(m, static_cast<float>(epoch));
    kiln::Logs logs{{"loss", 9.0}, {key, values[epoch]}};
    es.on_epoch_end(epoch, logs);
    ++run;
    if (m.stop_training) break;
  }
  es.on_train_end({});
  return run;
}
}  // namespace

TEST_CASE("EarlyStopping: defaults are Keras's") {
  cb::EarlyStopping es;
  CHECK(es.options().monitor == "val_loss");
  CHECK(es.options().min_delta == 0.0);
  CHECK(es.options().patience == 0);
  CHECK(es.options().mode == "auto");
  CHECK_FALSE(es.options().baseline.has_value());
  CHECK_FALSE(es.options().restore_best_weights);
  CHECK(es.options().start_from_epoch == 0);
}

TEST_CASE("EarlyStopping: patience counts epochs without improvement, then restores the best weights") {
  auto m = cbtest::make_model();
  cb::EarlyStopping es({.monitor = "val_loss", .patience = 2, .restore_best_weights = true});
  // e0 best 1.0; e1 best 0.8; e2 wait 1; e3 wait 2 >= 2 -> stop at epoch 3.
  const int run = drive(es, *m, "val_loss", {1.0, 0.8, 0.9, 0.85, 0.1, 0.1});
  CHECK(run == 4);
  CHECK(es.stopped_epoch == 3);
  CHECK(es.best_epoch == 1);
  CHECK(es.best == doctest::Approx(0.8));
  CHECK(m->stop_training);
  CHECK(get_w(*m) == 1.0f);  // epoch 1's weights are back
  CHECK_FALSE(es.maximizing());
}

TEST_CASE("EarlyStopping: without restore_best_weights the last weights stay") {
  auto m = cbtest::make_model();
  cb::EarlyStopping es({.monitor = "val_loss", .patience = 2});
  CHECK(drive(es, *m, "val_loss", {1.0, 0.8, 0.9, 0.85}) == 4);
  CHECK(get_w(*m) == 3.0f);
}

TEST_CASE("EarlyStopping: patience 0 stops at the first epoch that does not improve (but never at epoch 0)") {
  auto m = cbtest::make_model();
  cb::EarlyStopping es({.monitor = "loss_like"});
  CHECK(drive(es, *m, "loss_like", {1.0, 1.0, 0.5}) == 2);
  CHECK(es.stopped_epoch == 1);
}

TEST_CASE("EarlyStopping: min_delta is the smallest change that counts") {
  auto m = cbtest::make_model();
  cb::EarlyStopping es({.monitor = "val_loss", .min_delta = -0.1 /* |min_delta| is used */, .patience = 1});
  // e1: 0.95 + 0.1 < 1.0 is false -> wait 1 -> stop at 1.
  CHECK(drive(es, *m, "val_loss", {1.0, 0.95, 0.5}) == 2);
  CHECK(es.stopped_epoch == 1);
  cb::EarlyStopping es2({.monitor = "val_loss", .min_delta = 0.01, .patience = 1});
  CHECK(drive(es2, *m, "val_loss", {1.0, 0.95, 0.5, 0.495}) == 4);
  CHECK(es2.stopped_epoch == 3);
}

TEST_CASE("EarlyStopping: auto mode maximizes accuracy and auc, minimizes the rest") {
  auto m = cbtest::make_model();
  cb::EarlyStopping acc({.monitor = "val_accuracy", .patience = 1, .restore_best_weights = true});
  // e0 0.5, e1 0.6 (best), e2 0.6 is not > 0.6 -> stop at 2; restore epoch 1.
  CHECK(drive(acc, *m, "val_accuracy", {0.5, 0.6, 0.6, 0.9}) == 3);
  CHECK(acc.maximizing());
  CHECK(acc.stopped_epoch == 2);
  CHECK(get_w(*m) == 1.0f);

  cb::EarlyStopping auc({.monitor = "auc", .patience = 0});
  CHECK(drive(auc, *m, "auc", {0.7, 0.8, 0.75}) == 3);
  CHECK(auc.maximizing());

  cb::EarlyStopping mae({.monitor = "val_mae", .patience = 0});
  CHECK(drive(mae, *m, "val_mae", {0.7, 0.6, 0.65}) == 3);
  CHECK_FALSE(mae.maximizing());

  cb::EarlyStopping forced({.monitor = "val_loss", .patience = 0, .mode = "max"});
  CHECK(drive(forced, *m, "val_loss", {0.7, 0.6}) == 2);
  CHECK(forced.maximizing());
}

TEST_CASE("EarlyStopping: a baseline that is never beaten keeps the wait counter running") {
  auto m = cbtest::make_model();
  // Keras: an improvement over `best` resets wait only when it also beats the baseline.
  // e0 wait 1, e1 wait 2 (improves best, not baseline), e2 wait 3 >= 2 -> stop at 2.
  cb::EarlyStopping with({.monitor = "loss_b", .patience = 2, .baseline = 0.5, .restore_best_weights = true});
  CHECK(drive(with, *m, "loss_b", {1.0, 0.9, 0.95, 0.97}) == 3);
  CHECK(with.stopped_epoch == 2);
  CHECK(get_w(*m) == 1.0f);  // the best epoch is restored even though the baseline was never reached
  // Without the baseline: e2 wait 1, e3 wait 2 -> stop at 3.
  cb::EarlyStopping without({.monitor = "loss_b", .patience = 2});
  CHECK(drive(without, *m, "loss_b", {1.0, 0.9, 0.95, 0.97}) == 4);
  CHECK(without.stopped_epoch == 3);
}

TEST_CASE("EarlyStopping: start_from_epoch ignores the warm-up epochs") {
  auto m = cbtest::make_model();
  cb::EarlyStopping plain({.monitor = "v", .patience = 0});
  CHECK(drive(plain, *m, "v", {1, 2, 3, 4}) == 2);
  cb::EarlyStopping warm({.monitor = "v", .patience = 0, .restore_best_weights = true, .start_from_epoch = 2});
  // e0, e1 skipped; e2 best = 3; e3 no improvement -> stop at 3; best epoch is 2.
  CHECK(drive(warm, *m, "v", {1, 2, 3, 4}) == 4);
  CHECK(warm.stopped_epoch == 3);
  CHECK(warm.best_epoch == 2);
  CHECK(get_w(*m) == 2.0f);
}

TEST_CASE("EarlyStopping: restores the best weights at the end even when training was not stopped") {
  auto m = cbtest::make_model();
  cb::EarlyStopping es({.monitor = "val_loss", .patience = 5, .restore_best_weights = true});
  CHECK(drive(es, *m, "val_loss", {0.5, 0.3, 0.4}) == 3);
  CHECK(es.stopped_epoch == 0);
  CHECK(get_w(*m) == 1.0f);
}

TEST_CASE("EarlyStopping: a missing monitor key is skipped") {
  auto m = cbtest::make_model();
  cb::EarlyStopping es({.monitor = "val_missing"});
  CHECK(drive(es, *m, "other", {1, 2, 3}) == 3);
  CHECK(es.stopped_epoch == 0);
}

TEST_CASE("EarlyStopping inside fit(): stops at the right epoch and restores the best weights") {
  auto m = cbtest::make_model(0.05);
  kiln::Tensor x = cbtest::column({1.f, 2.f, 3.f, 4.f});
  kiln::Tensor y = cbtest::column({3.f, 5.f, 7.f, 9.f});
  // A scripted monitor so the stopping epoch is known: best at epoch 2, patience 2 -> stop at epoch 4.
  const std::vector<double> script{5.0, 4.0, 3.0, 3.5, 3.2, 1.0, 1.0, 1.0};
  std::vector<float> w_at_end;
  cb::LambdaCallback scripted({.on_epoch_end = [&](int epoch, kiln::Logs& logs) {
    logs.set("val_score", script.at(epoch));
    w_at_end.push_back(cbtest::get_w(*m));
  }});
  auto es = std::make_shared<cb::EarlyStopping>(
      cb::EarlyStoppingOptions{.monitor = "val_score", .patience = 2, .restore_best_weights = true});
  auto h = m->fit(x, y, {.batch_size = 4, .epochs = 8, .verbose = 0, .callbacks = {scripted, es}, .shuffle = false});
  CHECK(h["loss"].size() == 5);
  CHECK(h.epoch == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(es->stopped_epoch == 4);
  CHECK(es->best_epoch == 2);
  REQUIRE(w_at_end.size() == 5);
  CHECK(w_at_end[4] != w_at_end[2]);         // training kept moving the weights...
  CHECK(cbtest::get_w(*m) == w_at_end[2]);   // ...and the best epoch's weights came back
}

TEST_CASE("EarlyStopping passed by name to fit() is the object fit used: stopped_epoch is readable afterwards") {
  auto m = cbtest::make_model(0.05);
  kiln::Tensor x = cbtest::column({1.f, 2.f, 3.f, 4.f});
  kiln::Tensor y = cbtest::column({3.f, 5.f, 7.f, 9.f});
  const std::vector<double> script{5.0, 4.0, 4.5, 4.5, 4.5, 4.5};
  cb::LambdaCallback scripted(
      {.on_epoch_end = [&](int epoch, kiln::Logs& logs) { logs.set("val_score", script.at(epoch)); }});
  cb::EarlyStopping es({.monitor = "val_score", .patience = 2});
  auto h = m->fit(x, y, {.batch_size = 4, .epochs = 6, .verbose = 0, .callbacks = {scripted, es}, .shuffle = false});
  CHECK(h["loss"].size() == 4);
  CHECK(es.stopped_epoch == 3);
  CHECK(es.best_epoch == 1);
  CHECK(es.wait == 2);
  // A temporary is owned by fit; a const object cannot be passed, since fit changes its callbacks.
  static_assert(std::is_constructible_v<kiln::CallbackArg, cb::EarlyStopping&&>);
  static_assert(!std::is_constructible_v<kiln::CallbackArg, const cb::EarlyStopping&>);
}

}  // namespace test_early_stopping
