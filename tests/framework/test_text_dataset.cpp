// kiln::utils::text_dataset_from_directory against Keras 3.15.1 on TensorFlow 2.21.0:
// tests/fixtures/keras_text_dataset/expected.json, written by make_fixture.py beside it
// over its tree/ folder (file order, class names, labels in each mode, max_length, the
// seeded training/validation split, error texts).
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/utils/text_dataset.h"
#include "test_util.h"

namespace test_text_dataset {

namespace k = kiln;
namespace U = kiln::utils;
using json = nlohmann::json;

namespace {

const std::string kDir = std::string(KILN_SOURCE_DIR) + "/tests/fixtures/keras_text_dataset";
const std::string kTree = kDir + "/tree";

const json& expected() {
  static const json e = [] {
    std::ifstream in(kDir + "/expected.json");
    return json::parse(in);
  }();
  return e;
}

// The fixture holds each text's bytes as Latin-1 code points (the files are not all UTF-8).
std::string bytes_of(const std::string& latin1_as_utf8) {
  std::string out;
  for (std::size_t i = 0; i < latin1_as_utf8.size(); ++i) {
    const auto c = static_cast<unsigned char>(latin1_as_utf8[i]);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      out += static_cast<char>(((c & 0x1f) << 6) | (static_cast<unsigned char>(latin1_as_utf8[++i]) & 0x3f));
    }
  }
  return out;
}

// Every element of an unbatched dataset: (text, label values) pairs.
std::vector<std::pair<std::string, std::vector<float>>> elements(const k::Dataset& ds) {
  std::vector<std::pair<std::string, std::vector<float>>> out;
  for (const k::Element& e : ds) {
    REQUIRE(e[0].dtype() == k::DType::string);
    REQUIRE(e[0].rank() == 0);
    std::vector<float> label;
    if (e.size() > 1) {
      const k::Tensor l = k::cast(e[1], k::DType::float32);
      label = l.to_vector<float>();
    }
    out.emplace_back(e[0].item<std::string>(), label);
  }
  return out;
}

void check_elements(const k::Dataset& ds, const json& want) {
  const auto got = elements(ds);
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element ", i);
    CHECK(got[i].first == bytes_of(want[i][0].get<std::string>()));
    std::vector<float> label;
    if (want[i][1].is_number()) label.push_back(want[i][1].get<float>());
    else if (want[i][1].is_array()) label = want[i][1].get<std::vector<float>>();
    CHECK(got[i].second == label);
  }
}

std::vector<std::string> sorted_texts(const k::Dataset& batched) {
  std::vector<std::string> out;
  for (const k::Element& e : batched)
    for (const auto& s : e[0].to_vector<std::string>()) out.push_back(s);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("text_dataset_from_directory: Keras's files, order, labels and truncation") {
  const json& e = expected();
  auto sorted = U::text_dataset_from_directory(kTree, {.batch_size = std::nullopt, .shuffle = false, .verbose = false});
  CHECK(sorted.class_names == e["sorted"]["class_names"].get<std::vector<std::string>>());
  check_elements(sorted, e["sorted"]["elements"]);
  check_elements(U::text_dataset_from_directory(kTree, {.label_mode = "categorical", .batch_size = std::nullopt,
                                                        .max_length = 5, .shuffle = false, .verbose = false}),
                 e["categorical_max5"]);
  auto binary = U::text_dataset_from_directory(kTree, {.label_mode = "binary",
                                                       .class_names = std::vector<std::string>{"spam", "ham"},
                                                       .batch_size = std::nullopt, .shuffle = false, .verbose = false});
  CHECK(binary.class_names == e["binary"]["class_names"].get<std::vector<std::string>>());
  check_elements(binary, e["binary"]["elements"]);
  check_elements(U::text_dataset_from_directory(kTree, {.labels = nullptr, .batch_size = std::nullopt, .shuffle = false,
                                                        .verbose = false}),
                 e["unlabelled"]);
}

TEST_CASE("text_dataset_from_directory: the seeded split is Keras's, file for file, and batches are string vectors") {
  const json& e = expected();
  auto [train, val] = U::text_dataset_from_directory_both(
      kTree, {.batch_size = 2, .seed = 7, .validation_split = 0.4, .subset = "both", .verbose = false});
  std::vector<std::string> want_train, want_val;
  for (const auto& t : e["split_seed7"]["training"]) want_train.push_back(bytes_of(t.get<std::string>()));
  for (const auto& t : e["split_seed7"]["validation"]) want_val.push_back(bytes_of(t.get<std::string>()));
  std::sort(want_train.begin(), want_train.end());
  std::sort(want_val.begin(), want_val.end());
  CHECK(sorted_texts(train) == want_train);
  CHECK(sorted_texts(val) == want_val);
  auto one = U::text_dataset_from_directory(kTree, {.batch_size = 2, .seed = 7, .validation_split = 0.4,
                                                    .subset = "training", .verbose = false});
  CHECK(sorted_texts(one) == want_train);
  for (const k::Element& b : train.dataset) {
    CHECK(b[0].dtype() == k::DType::string);
    CHECK(b[0].rank() == 1);
    CHECK(b[1].dtype() == k::DType::int32);
    CHECK(b[1].shape() == b[0].shape());
  }
}

TEST_CASE("text_dataset_from_directory: Keras's errors") {
  const json& e = expected();
  CHECK_THROWS_WITH_AS(U::text_dataset_from_directory(kTree, {.label_mode = "binary", .verbose = false}),
                       e["binary_error"].get<std::string>().c_str(), k::ValueError);
  CHECK_THROWS_WITH_AS(U::text_dataset_from_directory(kTree, {.labels = std::string("names"), .verbose = false}),
                       e["labels_error"].get<std::string>().c_str(), k::ValueError);
  CHECK_THROWS_WITH_AS(U::text_dataset_from_directory(kTree, {.validation_split = 0.2, .subset = "training",
                                                              .verbose = false}),
                       doctest::Contains("you must provide a `seed` argument"), k::ValueError);
  CHECK_THROWS_WITH_AS(U::text_dataset_from_directory(kTree, {.subset = "both", .verbose = false}),
                       doctest::Contains("text_dataset_from_directory_both"), k::ValueError);
  CHECK_THROWS_WITH_AS(U::text_dataset_from_directory(kDir + "/tree/ham/more/../../../nowhere", {.verbose = false}),
                       doctest::Contains("nowhere"), k::Error);
  CHECK_THROWS_WITH_AS(U::text_dataset_from_directory(kTree, {.class_names = std::vector<std::string>{"eggs", "bacon"},
                                                              .verbose = false}),
                       doctest::Contains("did not match the names of the subdirectories"), k::ValueError);
}

}  // namespace test_text_dataset
