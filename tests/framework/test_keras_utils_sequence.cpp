// kiln::utils::pad_sequences and timeseries_dataset_from_array against Keras 3.15.1
// on TensorFlow 2.21.0: tests/fixtures/keras_utils/keras_utils.json, written by
// tests/fixtures/keras_utils/make_fixture.py (values, batch order and error texts).
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/utils/sequence.h"

namespace test_keras_utils_sequence {

namespace k = kiln;
namespace U = kiln::utils;
using json = nlohmann::json;

namespace {

const json& fixture() {
  static const json f = [] {
    std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/fixtures/keras_utils/keras_utils.json");
    REQUIRE(in.good());
    return json::parse(in);
  }();
  return f;
}

k::Tensor tensor_of(const json& t) {
  const k::Shape s(t.at("shape").get<std::vector<int64_t>>());
  const auto v = t.at("values").get<std::vector<double>>();
  return k::Tensor(v, s).cast(k::dtype_from_name(t.at("dtype").get<std::string>()));
}

// Exact: every value here is a small integer or a float32 the fixture wrote exactly.
void check_same(const k::Tensor& got, const json& want) {
  CHECK(k::dtype_name(got.dtype()) == want.at("dtype").get<std::string>());
  CHECK(got.shape().dims() == want.at("shape").get<std::vector<int64_t>>());
  CHECK(got.to_vector<double>() == want.at("values").get<std::vector<double>>());
}

U::PadSequencesOptions pad_options(const json& o) {
  U::PadSequencesOptions p;
  if (o.contains("maxlen")) p.maxlen = o.at("maxlen").get<int64_t>();
  if (o.contains("dtype")) p.dtype = k::dtype_from_name(o.at("dtype").get<std::string>());
  if (o.contains("padding")) p.padding = o.at("padding");
  if (o.contains("truncating")) p.truncating = o.at("truncating");
  if (o.contains("value")) p.value = o.at("value").get<double>();
  return p;
}

std::vector<k::Tensor> feature_sequences(const json& c) {
  std::vector<k::Tensor> out;
  for (const auto& t : c.at("feature_sequences")) out.push_back(tensor_of(t));
  return out;
}

U::TimeseriesOptions ts_options(const json& o) {
  U::TimeseriesOptions t;
  if (o.contains("sequence_stride")) t.sequence_stride = o.at("sequence_stride");
  if (o.contains("sampling_rate")) t.sampling_rate = o.at("sampling_rate");
  if (o.contains("batch_size"))
    t.batch_size = o.at("batch_size").is_null() ? std::nullopt : std::optional<int64_t>(o.at("batch_size"));
  if (o.contains("start_index")) t.start_index = o.at("start_index").get<int64_t>();
  if (o.contains("end_index")) t.end_index = o.at("end_index").get<int64_t>();
  return t;
}

std::optional<k::Tensor> ts_targets(const json& o) {
  if (!o.contains("targets")) return std::nullopt;
  const k::Tensor all = tensor_of(fixture().at("targets"));
  return o.at("targets") == "short" ? all[{k::Slice(0, 6)}] : all;
}

std::vector<k::Element> elements(const k::Dataset& ds) {
  std::vector<k::Element> out;
  for (const k::Element& e : ds) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("pad_sequences: Keras's values for every padding, truncating, maxlen, value and dtype") {
  for (const auto& c : fixture().at("pad_sequences")) {
    INFO(c.at("options").dump());
    const auto o = pad_options(c.at("options"));
    if (c.contains("sequences")) {
      check_same(U::pad_sequences(c.at("sequences").get<std::vector<std::vector<int64_t>>>(), o), c.at("output"));
    } else {
      check_same(U::pad_sequences(feature_sequences(c), o), c.at("output"));
    }
  }
  // The docstring's call, written as a Keras user writes it.
  CHECK(U::pad_sequences({{1}, {2, 3}, {4, 5, 6}}, {.maxlen = 2}).to_vector<int32_t>() ==
        std::vector<int32_t>{0, 1, 2, 3, 5, 6});
}

TEST_CASE("pad_sequences: Keras's errors for bad sides and mismatched sample shapes") {
  for (const auto& c : fixture().at("pad_errors")) {
    const std::string want = c.at("error");
    INFO(want);
    if (c.contains("feature_sequences")) {
      CHECK_THROWS_WITH_AS(U::pad_sequences(feature_sequences(c), {.dtype = k::float32}), want.c_str(), k::ValueError);
    } else {
      CHECK_THROWS_WITH_AS(U::pad_sequences({{1}, {2, 3}}, pad_options(c.at("options"))), want.c_str(), k::ValueError);
    }
  }
  CHECK_THROWS_WITH_AS(U::pad_sequences({{1}}, {.maxlen = -1}),
                       "pad_sequences: `maxlen` must be 0 or greater. Received: maxlen=-1", k::ValueError);
  CHECK(U::pad_sequences({{1, 2}, {}}, {.maxlen = 0}).shape() == k::Shape({2, 0}));
}

TEST_CASE("timeseries_dataset_from_array: Keras's windows, targets and batches, in Keras's order") {
  const k::Tensor data = tensor_of(fixture().at("data"));
  for (const auto& c : fixture().at("timeseries")) {
    const auto& o = c.at("options");
    INFO(o.dump());
    const k::Dataset ds = U::timeseries_dataset_from_array(data, ts_targets(o), o.at("sequence_length"), ts_options(o));
    const auto got = elements(ds);
    const auto& want = c.at("elements");
    REQUIRE(got.size() == want.size());
    CHECK(ds.cardinality() == static_cast<int64_t>(want.size()));
    for (std::size_t i = 0; i < got.size(); ++i) {
      REQUIRE(got[i].size() == want[i].size());
      for (std::size_t j = 0; j < got[i].size(); ++j) check_same(got[i][j], want[i][j]);
    }
  }
}

TEST_CASE("timeseries_dataset_from_array: shuffle keeps every (window, target) pair, reproducibly per seed") {
  const k::Tensor data = tensor_of(fixture().at("data"));
  for (const auto& c : fixture().at("timeseries_shuffled")) {
    const auto& o = c.at("options");
    INFO(o.dump());
    auto opts = ts_options(o);
    opts.shuffle = true;
    opts.seed = c.at("seed").get<uint32_t>();
    // Pairs as (first value of the window, target) in both, sorted: TensorFlow's buffer
    // shuffle draws from its own generator, so only the set (and each pair) must agree.
    auto pairs = [](const std::vector<std::pair<std::vector<double>, std::vector<double>>>& batches) {
      std::vector<std::pair<double, double>> out;
      for (const auto& [w, t] : batches) {
        const std::size_t n = t.size(), per = w.size() / n;
        for (std::size_t i = 0; i < n; ++i) out.emplace_back(w[i * per], t[i]);
      }
      std::sort(out.begin(), out.end());
      return out;
    };
    std::vector<std::pair<std::vector<double>, std::vector<double>>> got, again, want;
    for (const auto& e : elements(U::timeseries_dataset_from_array(data, ts_targets(o), o.at("sequence_length"), opts)))
      got.emplace_back(e[0].to_vector<double>(), e[1].to_vector<double>());
    for (const auto& e : elements(U::timeseries_dataset_from_array(data, ts_targets(o), o.at("sequence_length"), opts)))
      again.emplace_back(e[0].to_vector<double>(), e[1].to_vector<double>());
    for (const auto& e : c.at("elements"))
      want.emplace_back(e[0].at("values").get<std::vector<double>>(), e[1].at("values").get<std::vector<double>>());
    CHECK(got == again);
    CHECK(pairs(got) == pairs(want));
    for (const auto& [w, t] : got) {
      const std::size_t n = t.size(), per = w.size() / n;
      for (std::size_t i = 0; i < n; ++i) CHECK(t[i] == 100 + w[i * per] / 2);  // the window's first row's target
    }
  }
}

TEST_CASE("timeseries_dataset_from_array: Keras's errors for bad indices and steps") {
  const k::Tensor data = tensor_of(fixture().at("data"));
  for (const auto& c : fixture().at("timeseries_errors")) {
    const std::string want = c.at("error");
    INFO(want);
    CHECK_THROWS_WITH_AS(U::timeseries_dataset_from_array(data, std::nullopt, 3, ts_options(c.at("options"))),
                         want.c_str(), k::ValueError);
  }
  CHECK_THROWS_WITH_AS(U::timeseries_dataset_from_array(data, std::nullopt, 0),
                       doctest::Contains("`sequence_length` must be higher than 0"), k::ValueError);
  CHECK_THROWS_WITH_AS(U::timeseries_dataset_from_array(k::Tensor(1.0f), std::nullopt, 2),
                       doctest::Contains("`data` must have a time axis first; received a tensor of shape ()"),
                       k::ValueError);
}

TEST_CASE("numpy_legacy_permutation: NumPy's RandomState(seed).shuffle, element for element") {
  for (const auto& c : fixture().at("numpy_permutations")) {
    INFO(c.dump());
    CHECK(U::numpy_legacy_permutation(c.at("n"), c.at("seed")) == c.at("permutation").get<std::vector<int64_t>>());
  }
}

}  // namespace test_keras_utils_sequence
