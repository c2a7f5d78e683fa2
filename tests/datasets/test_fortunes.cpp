// Tests for kiln::datasets::fortunes: entries between "%" lines, invalid UTF-8
// replaced, repeats and shared entries dropped, the stratified split and its seed,
// the errors; and the default collections when Debian's package is installed.
#include <doctest/doctest.h>

#include "test_util.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "temp_dir.h"
#include "kiln/datasets/fortunes.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_fortunes {

namespace fs = std::filesystem;
namespace fortunes = kiln::datasets::fortunes;

namespace {

using kiln_test::TempDir;

void write(const fs::path& file, const std::string& bytes) { std::ofstream(file, std::ios::binary) << bytes; }

// A collection of `n` entries "<name> entry <i>", plus `extra` entries.
void write_collection(const fs::path& dir, const std::string& name, int n, const std::vector<std::string>& extra = {}) {
  std::string text;
  for (int i = 0; i < n; ++i) text += name + " entry " + std::to_string(i) + "\n%\n";
  for (const std::string& e : extra) text += e + "\n%\n";
  write(dir / name, text);
}

std::multiset<std::string> texts(const kiln::datasets::Split& s) {
  const std::vector<std::string> v = s.x.to_vector<std::string>();
  return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE("fortunes: entries end at lines of '%'; blank lines around them go, and invalid UTF-8 becomes U+FFFD") {
  TempDir dir("kiln_fortunes");
  // A Latin-1 "é" (0xE9) in the second entry; Windows line ends in the third; an empty entry;
  // no "%" after the last.
  write(dir.path / "c",
        "\nFirst line\n  indented second\n\n%\ncaf\xE9 au lait\n%\r\nwindows\r\n%\r\n%\n\n  \nlast one\n");
  const std::vector<std::string> entries = fortunes::read_collection((dir.path / "c").string());
  CHECK(entries == std::vector<std::string>{"First line\n  indented second", "caf\xEF\xBF\xBD au lait", "windows",
                                            "last one"});
}

TEST_CASE("fortunes: the split is stratified, disjoint, without repeats or shared entries, and fixed by the seed") {
  TempDir dir("kiln_fortunes");
  write_collection(dir.path, "a", 40, {"shared", "a entry 3"});  // "a entry 3" twice: kept once
  write_collection(dir.path, "b", 20, {"shared"});               // "shared" in two collections: dropped
  const fortunes::Options options{.path = dir.path.string(), .collections = {"a", "b"}, .seed = 5};
  CHECK(fortunes::collection_sizes(options) == std::vector<int64_t>{40, 20});
  const auto [train, test] = fortunes::load_data(options);
  CHECK(train.x.shape() == kiln::Shape{48});
  CHECK(test.x.shape() == kiln::Shape{12});
  CHECK(train.y.dtype() == kiln::DType::int64);
  const std::vector<int64_t> ytest = test.y.to_vector<int64_t>();
  CHECK(std::count(ytest.begin(), ytest.end(), 0) == 8);
  CHECK(std::count(ytest.begin(), ytest.end(), 1) == 4);
  std::multiset<std::string> all = texts(train);
  for (const std::string& t : texts(test)) all.insert(t);
  CHECK(all.size() == 60);
  CHECK(std::set<std::string>(all.begin(), all.end()).size() == 60);
  CHECK(all.count("shared") == 0);
  // Labels follow the texts: every "b entry" is labelled 1.
  const std::vector<std::string> xtrain = train.x.to_vector<std::string>();
  const std::vector<int64_t> ytrain = train.y.to_vector<int64_t>();
  for (std::size_t i = 0; i < xtrain.size(); ++i) CHECK(ytrain[i] == (xtrain[i][0] == 'b' ? 1 : 0));

  const auto again = fortunes::load_data(options);
  CHECK(again.train.x.to_vector<std::string>() == xtrain);
  auto other = options;
  other.seed = 6;
  CHECK(fortunes::load_data(other).test.x.to_vector<std::string>() != test.x.to_vector<std::string>());
  other.max_per_collection = 10;  // balanced: 10 of each, 2 of each for testing
  const auto capped = fortunes::load_data(other);
  CHECK(capped.train.x.shape() == kiln::Shape{16});
  CHECK(capped.test.y.to_vector<int64_t>().size() == 4);
}

TEST_CASE("fortunes: errors name the missing file and the packages, and refuse unusable options") {
  TempDir dir("kiln_fortunes");
  write_collection(dir.path, "a", 10);
  write_collection(dir.path, "tiny", 1);
  fortunes::Options options{.path = dir.path.string(), .collections = {"a", "nosuch"}};
  const std::string missing = (dir.path / "nosuch").string();
  CHECK_THROWS_WITH_AS(fortunes::load_data(options),
                       ("fortunes: " + missing +
                        " does not exist (Debian's packages fortunes and fortunes-min install the collections in "
                        "/usr/share/games/fortunes)")
                           .c_str(),
                       kiln::IOError);
  options.collections = {"a"};
  CHECK_THROWS_AS(fortunes::load_data(options), kiln::ValueError);
  options.collections = {"a", "a"};
  CHECK_THROWS_WITH_AS(fortunes::load_data(options), "fortunes: the collection 'a' is named twice", kiln::ValueError);
  options.collections = {"a", "tiny"};
  CHECK_THROWS_WITH_AS(fortunes::load_data(options), doctest::Contains("'tiny' has 1 usable entries"),
                       kiln::ValueError);
}

TEST_CASE("fortunes: Debian's default collections, all valid UTF-8, none tiny") {
  bool all = true;
  for (const std::string& c : fortunes::default_collections())
    all = all && fs::exists(fs::path(fortunes::default_path()) / c);
  KILN_REQUIRE_TOOL(all, "Debian's fortune collections (package fortunes)");
  const std::vector<int64_t> sizes = fortunes::collection_sizes();
  REQUIRE(sizes.size() == 5);
  for (int64_t n : sizes) CHECK(n > 500);
  const auto [train, test] = fortunes::load_data();
  CHECK(train.x.shape()[0] + test.x.shape()[0] == std::accumulate(sizes.begin(), sizes.end(), int64_t{0}));
  for (const std::string& t : test.x.to_vector<std::string>()) CHECK(t.find("\xEF\xBF\xBD") == std::string::npos);
}

}  // namespace test_fortunes
