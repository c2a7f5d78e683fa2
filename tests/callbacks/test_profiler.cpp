// kiln::profiler and TensorBoard's profile_batch: the trace file's structure
// (steps, ops inside steps, each op attributed to a layer of the model), and the
// per-layer summary adding up to the steps' time.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "callback_test_utils.h"
#include "kiln/callbacks/tensorboard.h"
#include "kiln/core/error.h"
#include "kiln/core/profiler.h"
#include "kiln/kiln.h"

namespace cb = kiln::callbacks;
namespace fs = std::filesystem;
namespace L = kiln::layers;
using json = nlohmann::json;

namespace test_profiler {

std::shared_ptr<kiln::Sequential> mlp(bool jit) {
  auto m = std::make_shared<kiln::Sequential>(std::vector<kiln::LayerPtr>{
      L::Input({256}), L::Dense(256, {.activation = "relu"}), L::Dense(128, {.activation = "relu"}), L::Dense(10)});
  m->compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy", .jit_compile = jit});
  return m;
}

json read_trace(const std::string& path) {
  std::ifstream f(path);
  REQUIRE(f.good());
  return json::parse(f);
}

/// The summary's rows: name -> milliseconds.
std::map<std::string, double> summary_rows(const std::string& text) {
  std::map<std::string, double> rows;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // totals
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream cols(line);
    std::string name;
    double ms = 0;
    cols >> name >> ms;
    if (name == "(outside" || name == "(between") {  // two-word names
      std::string rest;
      cols.clear();
      std::istringstream again(line);
      std::string a, b;
      again >> a >> b >> ms;
      name = a + " " + b;
    }
    rows[name] = ms;
  }
  return rows;
}

TEST_CASE("profiler: TensorBoard's profile_batch traces those batches; ops sit in steps and belong to the model's layers") {
  cbtest::TempDir dir;
  auto m = mlp(true);
  const kiln::Tensor x = kiln::random::uniform({512, 256}, 0, 1, kiln::float32, 3);
  const kiln::Tensor y = kiln::cast(kiln::random::uniform({512}, 0, 10, kiln::float32, 4), kiln::int32);
  auto tb = std::make_shared<cb::TensorBoard>(dir / "logs", cb::TensorBoardOptions{.profile_batch = {3, 8}});
  m->fit(x, y, {.batch_size = 64, .epochs = 1, .verbose = 0, .callbacks = {tb}});
  const std::string path = tb->profile_file();
  REQUIRE(!path.empty());
  CHECK(fs::path(path).filename() == "kiln.trace.json");
  CHECK(fs::path(path).parent_path().parent_path() == fs::path(dir / "logs") / "train" / "plugins" / "profile");
  CHECK_FALSE(kiln::profiler::active());

  const json trace = read_trace(path);
  std::vector<std::pair<double, double>> steps;
  for (const auto& e : trace.at("traceEvents")) {
    CHECK(e.at("ph") == "X");
    if (e.at("cat") == "step") {
      CHECK(e.at("name") == "train_step");
      steps.emplace_back(e.at("ts").get<double>(), e.at("ts").get<double>() + e.at("dur").get<double>());
    }
  }
  REQUIRE(steps.size() == 6);  // batches 3 to 8
  std::vector<double> in_step(steps.size(), 0.0);
  int ops = 0, ops_in_layers = 0, outside_steps = 0;
  double op_us = 0;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("cat") != "op") continue;
    ++ops;
    op_us += e.at("dur").get<double>();
    const std::string layer = e.at("args").at("layer");
    for (const auto& l : m->layers()) ops_in_layers += layer == m->name() + "/" + l->name();
    const double t = e.at("ts").get<double>();
    int inside = -1;
    for (std::size_t k = 0; k < steps.size(); ++k)
      if (t >= steps[k].first - 1 && t <= steps[k].second + 1) inside = static_cast<int>(k);
    if (inside < 0) ++outside_steps;
    else in_step[static_cast<std::size_t>(inside)] += e.at("dur").get<double>();
  }
  CHECK(ops > 0);
  CHECK(ops_in_layers > 0);
  CHECK(outside_steps == 0);
  // A compiled step is its ops: they add up to the step's time within 10 % (the
  // median step, so that the OS taking the core between two ops once does not count).
  std::vector<double> share;
  for (std::size_t k = 0; k < steps.size(); ++k) share.push_back(in_step[k] / (steps[k].second - steps[k].first));
  std::sort(share.begin(), share.end());
  CHECK(share[share.size() / 2] >= 0.9);
  CHECK(share.back() <= 1.0 + 1e-6);

  const auto rows = summary_rows(kiln::profiler::summary());
  double in_rows = 0;
  for (const auto& [name, ms] : rows)
    if (name != "(between ops)") in_rows += ms;
  for (const auto& l : m->layers()) CHECK(rows.count(m->name() + "/" + l->name()) == 1);
  CHECK(in_rows == doctest::Approx(op_us / 1e3).epsilon(0.01));
}

TEST_CASE("profiler: eager fit records the model's layer calls; start and stop say when they are misused") {
  cbtest::TempDir dir;
  auto m = mlp(false);
  const kiln::Tensor x = kiln::random::uniform({128, 256}, 0, 1, kiln::float32, 5);
  const kiln::Tensor y = kiln::cast(kiln::random::uniform({128}, 0, 10, kiln::float32, 6), kiln::int32);
  kiln::profiler::start(dir / "eager");
  CHECK(kiln::profiler::active());
  CHECK_THROWS_WITH_AS(kiln::profiler::start(dir / "again"), doctest::Contains("already being recorded"),
                       kiln::ValueError);
  m->fit(x, y, {.batch_size = 64, .epochs = 1, .verbose = 0});
  const std::string path = kiln::profiler::stop();
  CHECK_THROWS_WITH_AS(kiln::profiler::stop(), doctest::Contains("no trace is being recorded"), kiln::ValueError);
  const std::string first = m->name() + "/" + m->layers().at(0)->name();
  int layer_calls = 0;
  const json trace = read_trace(path);
  for (const auto& e : trace.at("traceEvents"))
    if (e.at("cat") == "layer" && e.at("name") != "backward" && e.at("args").at("layer") == first) ++layer_calls;
  CHECK(layer_calls == 2);  // two batches
  const auto rows = summary_rows(kiln::profiler::summary());
  for (const auto& l : m->layers()) CHECK(rows.count(m->name() + "/" + l->name()) == 1);
}

TEST_CASE("profiler: profile_batch takes Keras's values and rejects the others with its message") {
  CHECK(cb::ProfileBatch(0).start() == 0);
  CHECK(cb::ProfileBatch(5).stop() == 5);
  CHECK(cb::ProfileBatch(10, 15).start() == 10);
  CHECK_THROWS_WITH_AS(cb::ProfileBatch(-1), doctest::Contains("profile_batch must be a non-negative integer"),
                       kiln::ValueError);
  CHECK_THROWS_WITH_AS(cb::ProfileBatch(6, 3), doctest::Contains("Found: (6, 3)"), kiln::ValueError);
}

}  // namespace test_profiler
