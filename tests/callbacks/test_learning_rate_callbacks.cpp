// ReduceLROnPlateau and LearningRateScheduler against Keras 3's logic, worked by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "callback_test_utils.h"
#include "kiln/callbacks/learning_rate_scheduler.h"
#include "kiln/callbacks/reduce_lr_on_plateau.h"
#include "kiln/core/error.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_learning_rate_callbacks {

namespace cb = kiln::callbacks;

namespace {
/// Runs the epoch-end hook over `values` of `key`; returns the "learning_rate"
/// each epoch's logs carried and fills `after` with the rate after each epoch.
std::vector<double> drive(cb::ReduceLROnPlateau& r, kiln::Model& m, const std::string& key,
                          const std::vector<double>& values, std::vector<double>* after = nullptr) {
  r.set_model(&m);
  r.on_train_begin({});
  std::vector<double> logged;
  for (int e = 0; e < static_cast<int>(values.size()); ++e) {
    kiln::Logs logs{{"loss", 1.0}, {key, values[e]}};
    r.on_epoch_end(e, logs);
    logged.push_back(logs.at("learning_rate"));
    if (after) after->push_back(m.optimizer()->learning_rate());
  }
  return logged;
}
}  // namespace

TEST_CASE("ReduceLROnPlateau: defaults are Keras's and factor >= 1 is refused") {
  cb::ReduceLROnPlateau r;
  CHECK(r.options().monitor == "val_loss");
  CHECK(r.options().factor == 0.1);
  CHECK(r.options().patience == 10);
  CHECK(r.options().min_delta == 1e-4);
  CHECK(r.options().cooldown == 0);
  CHECK(r.options().min_lr == 0.0);
  CHECK_THROWS_AS(cb::ReduceLROnPlateau({.factor = 1.0}), kiln::ValueError);
}

TEST_CASE("ReduceLROnPlateau: lowers the rate after `patience` epochs without improvement") {
  auto m = cbtest::make_model(1.0);
  cb::ReduceLROnPlateau r({.factor = 0.5, .patience = 2});
  std::vector<double> after;
  // e0 best 1.0; e1 wait 1; e2 wait 2 -> lr 0.5; e3 best 0.5; e4 wait 1; e5 wait 2 -> 0.25; e6 wait 1.
  auto logged = drive(r, *m, "val_loss", {1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5}, &after);
  CHECK(logged == std::vector<double>{1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25});
  CHECK(after == std::vector<double>{1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25});
  CHECK(r.wait == 1);
}

TEST_CASE("ReduceLROnPlateau: an improvement smaller than min_delta does not count") {
  auto m = cbtest::make_model(1.0);
  cb::ReduceLROnPlateau r({.factor = 0.5, .patience = 1, .min_delta = 0.1});
  std::vector<double> after;
  drive(r, *m, "val_loss", {1.0, 0.95, 0.7}, &after);
  // e1: 0.95 < 1.0 - 0.1 is false -> reduce; e2: 0.7 < 0.9 -> improvement.
  CHECK(after == std::vector<double>{1.0, 0.5, 0.5});
}

TEST_CASE("ReduceLROnPlateau: cooldown pauses the counting after a reduction") {
  auto m = cbtest::make_model(1.0);
  cb::ReduceLROnPlateau r({.factor = 0.5, .patience = 1, .cooldown = 2});
  std::vector<double> after;
  drive(r, *m, "val_loss", {1, 1, 1, 1, 1, 1}, &after);
  CHECK(after == std::vector<double>{1.0, 0.5, 0.5, 0.25, 0.25, 0.125});
}

TEST_CASE("ReduceLROnPlateau: min_lr is a floor, compared in float32 as Keras does") {
  auto m = cbtest::make_model(1.0);
  cb::ReduceLROnPlateau r({.factor = 0.5, .patience = 1, .min_lr = 0.3});
  std::vector<double> after;
  drive(r, *m, "val_loss", {1, 1, 1, 1}, &after);
  CHECK(after[1] == 0.5);
  CHECK(after[2] == doctest::Approx(0.3).epsilon(1e-7));
  CHECK(after[3] == after[2]);
}

TEST_CASE("ReduceLROnPlateau: auto mode maximizes names containing 'acc'") {
  auto m = cbtest::make_model(1.0);
  cb::ReduceLROnPlateau r({.monitor = "val_accuracy", .factor = 0.5, .patience = 1});
  std::vector<double> after;
  drive(r, *m, "val_accuracy", {0.5, 0.7, 0.6}, &after);
  CHECK(after == std::vector<double>{1.0, 1.0, 0.5});
}

TEST_CASE("ReduceLROnPlateau inside fit(): learning_rate is in the history") {
  auto m = cbtest::make_model(0.01);
  kiln::Tensor x = cbtest::column({1.f, 2.f});
  kiln::Tensor y = cbtest::column({1.f, 2.f});
  // monitor a key that never appears: the rate is only logged.
  auto h = m->fit(x, y, {.epochs = 3, .verbose = 0, .callbacks = {cb::ReduceLROnPlateau({.monitor = "loss", .patience = 100})}});
  REQUIRE(h.history.count("learning_rate"));
  CHECK(h["learning_rate"].size() == 3);
  CHECK(h["learning_rate"][0] == 0.01);
}

TEST_CASE("LearningRateScheduler: schedule(epoch, lr) sets the rate at each epoch start") {
  auto m = cbtest::make_model(1.0);
  cb::LearningRateScheduler s([](int epoch, double lr) { return epoch < 2 ? lr : lr * 0.5; });
  s.set_model(m.get());
  std::vector<double> seen, logged;
  for (int e = 0; e < 4; ++e) {
    s.on_epoch_begin(e, {});
    seen.push_back(m->optimizer()->learning_rate());
    kiln::Logs logs{{"loss", 1.0}};
    s.on_epoch_end(e, logs);
    logged.push_back(logs.at("learning_rate"));
  }
  CHECK(seen == std::vector<double>{1.0, 1.0, 0.5, 0.25});
  CHECK(logged == seen);

  cb::LearningRateScheduler one([](int epoch) { return 0.1 / (epoch + 1); });
  one.set_model(m.get());
  one.on_epoch_begin(3, {});
  CHECK(m->optimizer()->learning_rate() == doctest::Approx(0.025));

  cb::LearningRateScheduler bad([](int) { return std::nan(""); });
  bad.set_model(m.get());
  CHECK_THROWS_AS(bad.on_epoch_begin(0, {}), kiln::ValueError);
}

TEST_CASE("LearningRateScheduler inside fit(): the rate used each epoch follows the schedule") {
  auto m = cbtest::make_model(1.0);
  kiln::Tensor x = cbtest::column({1.f});
  kiln::Tensor y = cbtest::column({0.f});
  auto h = m->fit(x, y, {.epochs = 3, .verbose = 0, .callbacks = {cb::LearningRateScheduler([](int e, double) {
                                                                  return 0.1 * (e + 1);
                                                                })}});
  REQUIRE(h["learning_rate"].size() == 3);
  CHECK(h["learning_rate"][0] == doctest::Approx(0.1));
  CHECK(h["learning_rate"][1] == doctest::Approx(0.2));
  CHECK(h["learning_rate"][2] == doctest::Approx(0.3));
}

}  // namespace test_learning_rate_callbacks
