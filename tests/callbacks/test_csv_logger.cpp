// CSVLogger writes what Keras's (Python csv, excel dialect) writes: header
// "epoch,<sorted keys>", Python float reprs, "\r\n" line ends; append resumes.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "callback_test_utils.h"
#include "kiln/callbacks/csv_logger.h"
#include "kiln/core/error.h"

namespace cb = kiln::callbacks;

namespace {
void epochs(cb::CSVLogger& c, int first, const std::vector<kiln::Logs>& rows) {
  c.on_train_begin({});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    kiln::Logs l = rows[i];
    c.on_epoch_end(first + static_cast<int>(i), l);
  }
  c.on_train_end({});
}
}  // namespace

TEST_CASE("CSVLogger: Keras's header and rows") {
  cbtest::TempDir dir;
  const std::string path = dir / "training.log";
  cb::CSVLogger c(path);
  // Logs in fit's order (loss first); the header sorts them.
  epochs(c, 0,
         {{{"loss", 0.5}, {"accuracy", 0.25}, {"val_loss", 0.75}, {"val_accuracy", 0.125}},
          {{"loss", static_cast<double>(0.1f)}, {"accuracy", 1e-5}, {"val_loss", 100.0}, {"val_accuracy", 1e16}}});
  CHECK(cbtest::read_file(path) ==
        "epoch,accuracy,loss,val_accuracy,val_loss\r\n"
        "0,0.25,0.5,0.125,0.75\r\n"
        // Python's repr: float32 0.1 seen as a double, 1e-05, 100.0, 1e+16.
        "1,1e-05,0.10000000149011612,1e+16,100.0\r\n");
}

TEST_CASE("CSVLogger: append keeps the rows of the first run and writes no second header") {
  cbtest::TempDir dir;
  const std::string path = dir / "run.csv";
  {
    cb::CSVLogger first(path, {.append = true});  // file missing: header written
    epochs(first, 0, {{{"loss", 2.0}}, {{"loss", 1.5}}});
  }
  {
    cb::CSVLogger resumed(path, {.append = true});
    epochs(resumed, 2, {{{"loss", 1.25}}, {{"loss", 1.0}}});
  }
  CHECK(cbtest::read_file(path) == "epoch,loss\r\n0,2.0\r\n1,1.5\r\n2,1.25\r\n3,1.0\r\n");
  {
    cb::CSVLogger fresh(path);  // append=false overwrites
    epochs(fresh, 0, {{{"loss", 0.0001}}});
  }
  CHECK(cbtest::read_file(path) == "epoch,loss\r\n0,0.0001\r\n");
}

TEST_CASE("CSVLogger: append to an existing empty file writes the header") {
  cbtest::TempDir dir;
  const std::string path = dir / "empty.csv";
  { std::ofstream(path).flush(); }
  cb::CSVLogger c(path, {.append = true});
  epochs(c, 0, {{{"loss", 3.0}}});
  CHECK(cbtest::read_file(path) == "epoch,loss\r\n0,3.0\r\n");
}

TEST_CASE("CSVLogger: separator, missing keys as NA, non-finite values, quoting") {
  cbtest::TempDir dir;
  const std::string path = dir / "sep.csv";
  cb::CSVLogger c(path, {.separator = ";"});
  epochs(c, 0,
         {{{"loss", std::numeric_limits<double>::quiet_NaN()}, {"a;b", 1.0}},
          {{"loss", std::numeric_limits<double>::infinity()}}});
  CHECK(cbtest::read_file(path) == "epoch;\"a;b\";loss\r\n0;1.0;nan\r\n1;NA;inf\r\n");
  CHECK_THROWS_AS(cb::CSVLogger(path, {.separator = ",,"}), kiln::TypeError);
}

TEST_CASE("CSVLogger inside fit(): one row per epoch, resumed with initial_epoch") {
  cbtest::TempDir dir;
  const std::string path = dir / "fit.csv";
  auto m = cbtest::make_model(0.1);
  kiln::Tensor x = cbtest::column({1.f, 2.f});
  kiln::Tensor y = cbtest::column({2.f, 4.f});
  auto h1 = m->fit(x, y, {.epochs = 2, .verbose = 0, .callbacks = {cb::CSVLogger(path, {.append = true})}});
  auto h2 = m->fit(x, y, {.epochs = 4, .verbose = 0, .callbacks = {cb::CSVLogger(path, {.append = true})},
                          .initial_epoch = 2});
  const std::string text = cbtest::read_file(path);
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find("\r\n", pos);
    REQUIRE(end != std::string::npos);
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 2;
  }
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] == "epoch,loss");
  for (int e = 0; e < 4; ++e) {
    const double loss = e < 2 ? h1["loss"][e] : h2["loss"][e - 2];
    CHECK(lines[e + 1].substr(0, 2) == std::to_string(e) + ",");
    CHECK(std::stod(lines[e + 1].substr(2)) == loss);  // repr round-trips exactly
  }
}
