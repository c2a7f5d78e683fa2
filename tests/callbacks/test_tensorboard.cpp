// TensorBoard event files: the encoder against known bytes, then a real fit()
// whose files are read back by tests/callbacks/tb_decode.py, an independent
// Python decoder that checks every CRC and parses the protobufs itself.
#include <doctest/doctest.h>

#include "test_util.h"

#include <cfloat>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "callback_test_utils.h"
#include "kiln/callbacks/lambda_callback.h"
#include "kiln/callbacks/tensorboard.h"
#include "kiln/core/error.h"
#include "kiln/io/event_file.h"

namespace cb = kiln::callbacks;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {
std::string hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string o;
  for (unsigned char c : s) {
    o += d[c >> 4];
    o += d[c & 15];
  }
  return o;
}

const std::string kDecoder = std::string(KILN_SOURCE_DIR) + "/tests/callbacks/tb_decode.py";

/// Runs the decoder on `path`; returns its JSON, or null when python3 is missing.
json decode(const std::string& path, const cbtest::TempDir& dir) {
  const std::string out = dir / "decoded.json";
  const int rc = cbtest::run_python(cbtest::quote(kDecoder) + " " + cbtest::quote(path) + " -o " + cbtest::quote(out));
  REQUIRE_MESSAGE(rc == 0, "tb_decode.py rejected the event files (status " << rc << ")");
  return json::parse(cbtest::read_file(out));
}

/// All (step, value) of a scalar tag in one decoded file, checking the TF2 scalar form on the way.
std::vector<std::pair<int64_t, double>> scalars(const json& file, const std::string& tag) {
  std::vector<std::pair<int64_t, double>> out;
  for (const auto& ev : file["events"])
    for (const auto& v : ev["values"])
      if (v["tag"] == tag) {
        CHECK(v["kind"] == "tensor");
        CHECK(v["dtype"] == "DT_FLOAT");
        CHECK(v["shape"] == json::array());
        CHECK(v["plugin_name"] == "scalars");
        CHECK(v["data_class"] == 1);
        REQUIRE(v["values"].size() == 1);
        out.emplace_back(ev["step"].get<int64_t>(), v["values"][0].get<double>());
      }
  return out;
}

std::set<std::string> tags(const json& file) {
  std::set<std::string> t;
  for (const auto& ev : file["events"])
    for (const auto& v : ev["values"]) t.insert(v["tag"].get<std::string>());
  return t;
}

double f32(double v) { return static_cast<double>(static_cast<float>(v)); }
}  // namespace

TEST_CASE("TensorBoard encoder: CRC-32C and the KERAS_FORMATS.md test vectors") {
  const std::string check = "123456789";
  CHECK(kiln::io::crc32c(check.data(), check.size()) == 0xE3069283u);
  // Event{wall_time=1700000000.0, file_version="brain.Event:2"}
  const std::string e1 = kiln::io::event_proto::file_version(1700000000.0);
  CHECK(hex(e1) == "0900000040fc54d9411a0d627261696e2e4576656e743a32");
  CHECK(hex(kiln::io::tfrecord(e1)) == "1800000000000000a37f4b22" + hex(e1) + "eced8f9d");
  // Event{wall_time=1700000001.5, step=3, summary{value{tag="epoch_loss", simple_value=0.5}}}
  const std::string e2 = kiln::io::event_proto::simple_value(1700000001.5, 3, "epoch_loss", 0.5f);
  CHECK(hex(e2) == "0900006040fc54d94110032a130a110a0a65706f63685f6c6f7373150000003f");
  CHECK(hex(kiln::io::tfrecord(e2)) == "2000000000000000" "29eda950" + hex(e2) + "edbc1849");
  // The TF2 scalar: Value{tag, tensor{dtype 1, shape {}, float_val [0.5]}, metadata{plugin "scalars", data_class 1}}.
  const std::string e3 = kiln::io::event_proto::scalar(1700000001.5, 3, "epoch_loss", 0.5f);
  CHECK(hex(e3) ==
        "0900006040fc54d9411003"
        "2a29" "0a27"
        "0a0a65706f63685f6c6f7373"          // tag
        "420a" "0801" "1200" "2a040000003f"  // tensor: DT_FLOAT, shape {}, float_val packed
        "4a0d" "0a090a077363616c617273" "2001");  // metadata: plugin_data{"scalars"}, data_class 1
}

TEST_CASE("TensorBoard encoder: TensorFlow's default histogram buckets") {
  const auto& l = kiln::io::default_histogram_bucket_limits();
  REQUIRE(l.size() % 2 == 1);
  CHECK(l.front() == -DBL_MAX);
  CHECK(l.back() == DBL_MAX);
  CHECK(l[l.size() / 2] == 0.0);
  CHECK(l[l.size() / 2 + 1] == 1e-12);
  CHECK(std::is_sorted(l.begin(), l.end()));
  CHECK(l[l.size() - 2] >= 1e20 / 1.1);
  CHECK(l[l.size() - 2] < 1e20);
}

TEST_CASE("TensorBoard options follow Keras") {
  CHECK(cb::UpdateFreq("epoch").batches() == 0);
  CHECK(cb::UpdateFreq("batch").batches() == 1);
  CHECK(cb::UpdateFreq(100).batches() == 100);
  CHECK_THROWS_AS(cb::UpdateFreq("step"), kiln::ValueError);
  CHECK_THROWS_AS(cb::UpdateFreq(0), kiln::ValueError);
  cb::TensorBoard tb;
  CHECK(tb.log_dir() == "logs");
  CHECK(tb.train_file().empty());  // files are created on first use
}

TEST_CASE("TensorBoard inside fit(): epoch and batch scalars, learning rate, histograms, read back independently") {
  KILN_REQUIRE_TOOL(cbtest::have_python3(), "python3 (Debian package python3)");
  cbtest::TempDir dir;
  const std::string log_dir = dir / "logs";
  auto m = cbtest::make_model(0.05);
  kiln::Tensor x = cbtest::column({1.f, 2.f, 3.f, 4.f});
  kiln::Tensor y = cbtest::column({3.f, 5.f, 7.f, 9.f});
  kiln::Tensor vx = cbtest::column({5.f});
  kiln::Tensor vy = cbtest::column({11.f});

  std::vector<double> batch_loss;  // by global batch, 1-based
  std::vector<float> w_at_epoch_end;
  cb::LambdaCallback probe({
      .on_epoch_end = [&](int, kiln::Logs&) { w_at_epoch_end.push_back(cbtest::get_w(*m)); },
      .on_train_batch_end = [&](int, const kiln::Logs& l) { batch_loss.push_back(l.at("loss")); },
  });
  auto tb = std::make_shared<cb::TensorBoard>(log_dir, cb::TensorBoardOptions{.histogram_freq = 2, .update_freq = 3});
  const double t0 = static_cast<double>(std::time(nullptr));
  auto h = m->fit(x, y, {.batch_size = 2, .epochs = 3, .verbose = 0, .callbacks = {probe, tb},
                         .validation_data = kiln::ValidationData{vx, vy}, .shuffle = false});
  const double t1 = static_cast<double>(std::time(nullptr));
  REQUIRE(h["loss"].size() == 3);
  REQUIRE(batch_loss.size() == 6);

  // One file per writer, named as tf.summary.create_file_writer names them.
  std::vector<std::string> train_files, val_files;
  for (const auto& e : fs::directory_iterator(fs::path(log_dir) / "train")) train_files.push_back(e.path().string());
  for (const auto& e : fs::directory_iterator(fs::path(log_dir) / "validation")) val_files.push_back(e.path().string());
  REQUIRE(train_files.size() == 1);
  REQUIRE(val_files.size() == 1);
  const std::regex name(R"(events\.out\.tfevents\.\d{10}\.[^/]+\.\d+\.\d+\.v2)");
  CHECK(std::regex_match(fs::path(train_files[0]).filename().string(), name));
  CHECK(std::regex_match(fs::path(val_files[0]).filename().string(), name));

  const json all = decode(log_dir, dir)["files"];
  REQUIRE(all.size() == 2);
  json train, val;
  for (const auto& [path, file] : all.items()) (path.rfind("train", 0) == 0 ? train : val) = file;
  REQUIRE(train.is_object());
  REQUIRE(val.is_object());

  for (const json* f : {&train, &val}) {
    const auto& first = (*f)["events"][0];
    CHECK(first["file_version"] == "brain.Event:2");
    // Unix seconds of the run: a minute's slack, since a virtual machine's clock may be
    // stepped (time synchronisation) between the write and the reading of t1.
    for (const auto& ev : (*f)["events"]) {
      CHECK(ev["wall_time"].get<double>() >= t0 - 60);
      CHECK(ev["wall_time"].get<double>() <= t1 + 60);
    }
  }

  SUBCASE("train/: epoch scalars at step = epoch") {
    auto loss = scalars(train, "epoch_loss");
    REQUIRE(loss.size() == 3);
    for (int e = 0; e < 3; ++e) {
      CHECK(loss[e].first == e);
      CHECK(loss[e].second == f32(h["loss"][e]));
    }
    auto lr = scalars(train, "epoch_learning_rate");
    REQUIRE(lr.size() == 3);
    for (const auto& [step, v] : lr) CHECK(v == f32(0.05));
    CHECK_FALSE(tags(train).count("epoch_val_loss"));
  }
  SUBCASE("validation/: the val_ keys without their prefix") {
    auto loss = scalars(val, "epoch_loss");
    REQUIRE(loss.size() == 3);
    for (int e = 0; e < 3; ++e) {
      CHECK(loss[e].first == e);
      CHECK(loss[e].second == f32(h["val_loss"][e]));
    }
    // Validation inside fit also reaches on_test_end, where Keras 3 writes
    // evaluation_<key>_vs_iterations against the optimizer step.
    CHECK(tags(val) == std::set<std::string>{"epoch_loss", "evaluation_loss_vs_iterations"});
  }
  SUBCASE("train/: batch scalars every 3rd global batch") {
    auto b = scalars(train, "batch_loss");
    REQUIRE(b.size() == 2);
    CHECK(b[0].first == 3);
    CHECK(b[0].second == f32(batch_loss[2]));
    CHECK(b[1].first == 6);
    CHECK(b[1].second == f32(batch_loss[5]));
  }
  SUBCASE("train/: weight histograms at epochs 0 and 2") {
    std::vector<int64_t> steps;
    for (const auto& ev : train["events"])
      for (const auto& v : ev["values"])
        if (v["tag"] == "linear/w/histogram") {
          CHECK(v["kind"] == "histo");
          const int64_t step = ev["step"];
          steps.push_back(step);
          const double w = w_at_epoch_end.at(static_cast<std::size_t>(step));
          CHECK(v["min"].get<double>() == w);
          CHECK(v["max"].get<double>() == w);
          CHECK(v["num"].get<double>() == 1.0);
          CHECK(v["sum"].get<double>() == w);
          CHECK(v["sum_squares"].get<double>() == w * w);
          // TF's encoding: empty runs collapsed; the one full bucket is the first limit above w.
          const auto limits = v["bucket_limit"].get<std::vector<double>>();
          const auto counts = v["bucket"].get<std::vector<double>>();
          REQUIRE(limits.size() == counts.size());
          REQUIRE(limits.size() == 3);
          CHECK(counts == std::vector<double>{0.0, 1.0, 0.0});
          const auto& all_limits = kiln::io::default_histogram_bucket_limits();
          auto it = std::upper_bound(all_limits.begin(), all_limits.end(), w);
          CHECK(limits[1] == *it);
          CHECK(limits[0] == *(it - 1));
          CHECK(limits[2] == DBL_MAX);
        }
    CHECK(steps == std::vector<int64_t>{0, 2});
    CHECK(tags(train).count("linear/b/histogram"));
  }
  SUBCASE("a corrupted byte is caught by the CRC check") {
    std::string bytes = cbtest::read_file(train_files[0]);
    bytes[bytes.size() / 2] ^= 0x10;
    const std::string bad = dir / "events.out.tfevents.bad";
    std::ofstream(bad, std::ios::binary) << bytes;
    CHECK(cbtest::run_python(cbtest::quote(kDecoder) + " " + cbtest::quote(bad) + " -o /dev/null 2>/dev/null") == 2);
  }
  SUBCASE("TensorBoard's own loader reads the run directory (when tensorboard is installed)") {
    if (std::system("python3 -c 'import tensorboard' >/dev/null 2>&1") != 0) {
      MESSAGE("the tensorboard Python package is not installed: skipping the cross-check with its loader");
      return;
    }
    const std::string out = dir / "tb.json";
    REQUIRE(cbtest::run_python(cbtest::quote(kDecoder) + " --tensorboard " + cbtest::quote(log_dir) + " -o " +
                               cbtest::quote(out)) == 0);
    const json runs = json::parse(cbtest::read_file(out))["runs"];
    const auto& tl = runs["train"]["epoch_loss"];
    CHECK(tl["plugin_name"] == "scalars");
    REQUIRE(tl["events"].size() == 3);
    for (int e = 0; e < 3; ++e) CHECK(tl["events"][e]["values"][0].get<double>() == f32(h["loss"][e]));
    CHECK(runs["validation"]["epoch_loss"]["events"].size() == 3);
    CHECK(runs["train"]["linear/w/histogram"]["plugin_name"] == "histograms");
  }
}

TEST_CASE("TensorBoard without a model's optimizer or validation: only train/ is written") {
  KILN_REQUIRE_TOOL(cbtest::have_python3(), "python3 (Debian package python3)");
  cbtest::TempDir dir;
  cb::TensorBoard tb(dir / "logs");
  tb.on_train_begin({});
  for (int e = 0; e < 2; ++e) {
    kiln::Logs logs{{"loss", 1.0 / (e + 1)}, {"accuracy", 0.25 * e}};
    tb.on_epoch_end(e, logs);
  }
  const std::string train_path = tb.train_file();
  tb.on_train_end({});
  CHECK_FALSE(fs::exists(fs::path(dir / "logs") / "validation"));
  const json f = decode(train_path, dir)["files"].begin().value();
  CHECK(f["records"] == 5);  // file_version + 2 epochs x 2 scalars
  CHECK(scalars(f, "epoch_accuracy") == std::vector<std::pair<int64_t, double>>{{0, 0.0}, {1, 0.25}});
  CHECK(scalars(f, "epoch_loss") == std::vector<std::pair<int64_t, double>>{{0, 1.0}, {1, 0.5}});
}
