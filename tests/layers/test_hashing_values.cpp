// Hashing, HashedCrossing and kiln/ops/string_hash.h against Keras 3.15.1 on
// TensorFlow 2.21.0: tests/fixtures/hashing/hashing.json, written by
// tests/fixtures/hashing/make_fixture.py (the layers need TensorFlow, which the
// oracle's JAX venv lacks), and Keras's docstring values, written here.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "kiln/ops/string_hash.h"

namespace test_hashing_values {

namespace k = kiln;
namespace L = kiln::layers;
using json = nlohmann::json;

namespace {

const json& fixture() {
  static const json f = [] {
    std::ifstream in(std::string(KILN_SOURCE_DIR) + "/tests/fixtures/hashing/hashing.json");
    REQUIRE(in.good());
    return json::parse(in);
  }();
  return f;
}

uint64_t u64(const json& j) { return std::stoull(j.get<std::string>()); }

k::Shape shape_of(const json& t) { return k::Shape(t.at("shape").get<std::vector<int64_t>>()); }

std::vector<std::string> strings_of(const json& t) { return t.at("values").get<std::vector<std::string>>(); }

// A fixture tensor of numbers (integers are written as strings: int64's extremes exceed a double).
k::Tensor tensor_of(const json& t) {
  const std::string dt = t.at("dtype");
  const k::Shape s = shape_of(t);
  if (dt == "int64" || dt == "int32") {
    std::vector<int64_t> v;
    for (const auto& e : t.at("values")) v.push_back(std::stoll(e.get<std::string>()));
    if (dt == "int32") return k::Tensor(std::vector<int32_t>(v.begin(), v.end()), s);
    return k::Tensor(v, s);
  }
  const auto v = t.at("values").get<std::vector<double>>();
  if (dt == "float32") return k::Tensor(std::vector<float>(v.begin(), v.end()), s);
  return k::Tensor(v, s);
}

// Exact comparison: bins and encodings are integers (float encodings hold small whole numbers).
void check_same(const k::Tensor& got, const json& want, const std::string& label) {
  INFO(label);
  CHECK(k::dtype_name(got.dtype()) == want.at("dtype").get<std::string>());
  CHECK(got.shape() == shape_of(want));
  const std::string dt = want.at("dtype");
  const bool integer = dt == "int64" || dt == "int32";
  const auto g = got.to_vector<double>();
  const auto gi = got.to_vector<int64_t>();
  REQUIRE(g.size() == want.at("values").size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (integer) CHECK(gi[i] == std::stoll(want["values"][i].get<std::string>()));
    else CHECK(g[i] == want["values"][i].get<double>());
  }
}

template <class Impl>
std::shared_ptr<Impl> layer_of(const json& config) {
  auto l = std::dynamic_pointer_cast<Impl>(L::from_config(config));
  REQUIRE(l);
  return l;
}

}  // namespace

TEST_CASE("string hashes: Fingerprint64, SipHash-2-4 and FingerprintCat64 as TensorFlow computes them") {
  const json& fp = fixture()["fingerprint64"];
  for (std::size_t i = 0; i < fp["strings"].size(); ++i) {
    const std::string s = fp["strings"][i];
    INFO("string of " << s.size() << " bytes");
    CHECK(k::utils::fingerprint64(s) == u64(fp["hashes"][i]));
  }
  for (const json& c : fixture()["siphash"]) {
    const uint64_t k0 = c["key"][0].get<uint64_t>(), k1 = c["key"][1].get<uint64_t>();
    for (std::size_t i = 0; i < c["strings"].size(); ++i) {
      const std::string s = c["strings"][i];
      INFO("key " << k0 << ", " << k1 << ", string of " << s.size() << " bytes");
      CHECK(k::utils::siphash24(k0, k1, s) == u64(c["hashes"][i]));
    }
  }
  // cross_hashed(num_buckets=0): FingerprintCat64(FingerprintCat64(seed, int), Fingerprint64(string)) % (2^63 - 1).
  const json& cr = fixture()["cross_hashed_raw"];
  for (std::size_t i = 0; i < cr["ints"].size(); ++i) {
    const uint64_t a = static_cast<uint64_t>(std::stoll(cr["ints"][i].get<std::string>()));
    const uint64_t h = k::utils::fingerprint_cat64(k::utils::fingerprint_cat64(0xDECAFCAFFEULL, a),
                                                   k::utils::fingerprint64(cr["strings"][i].get<std::string>()));
    CHECK(h % 9223372036854775807ULL == u64(cr["hashes"][i]));
  }
  // Embedded zeros count: a string_view is read by its size, not up to a terminator.
  CHECK(k::utils::fingerprint64(std::string_view("a\0b", 3)) != k::utils::fingerprint64("a"));
  CHECK(k::utils::hash_to_bins({"A", "B", "C", "D", "E"}, 3) == std::vector<int64_t>{1, 0, 1, 1, 2});
  CHECK_THROWS_WITH_AS(k::utils::hash_to_bins({"A"}, 0), doctest::Contains("num_bins=0"), k::ValueError);
}

TEST_CASE("Hashing: Keras's docstring examples") {
  const std::vector<std::string> abcde{"A", "B", "C", "D", "E"};
  auto bins = [&](L::Hashing h, const std::vector<std::string>& s) {
    return h->hash_strings(s, {static_cast<int64_t>(s.size()), 1}).to_vector<int64_t>();
  };
  CHECK(bins(L::Hashing(3), abcde) == std::vector<int64_t>{1, 0, 1, 1, 2});
  CHECK(bins(L::Hashing(3, {.mask_value = ""}), {"A", "B", "", "C", "D"}) == std::vector<int64_t>{1, 1, 0, 2, 2});
  CHECK(bins(L::Hashing(3, {.salt = std::vector<int64_t>{133, 137}}), abcde) == std::vector<int64_t>{1, 2, 1, 0, 2});
  CHECK(bins(L::Hashing(3, {.salt = std::vector<int64_t>{133}}), abcde) == std::vector<int64_t>{0, 0, 2, 1, 0});
  const json& d = fixture()["docstrings"];  // the same, as TensorFlow computed them
  CHECK(d["farmhash"].get<std::vector<int64_t>>() == std::vector<int64_t>{1, 0, 1, 1, 2});
  CHECK(d["siphash_int"].get<std::vector<int64_t>>() == std::vector<int64_t>{0, 0, 2, 1, 0});
}

TEST_CASE("Hashing: Keras's outputs for integers, floats and strings, each mode, salted, masked") {
  int n = 0;
  for (const json& c : fixture()["hashing"]) {
    auto layer = layer_of<L::HashingImpl>(c["config"]);
    const json& in = c["input"];
    const std::string label = c["config"]["config"].dump() + " on " + in["dtype"].get<std::string>() + " " +
                              shape_of(in).to_string();
    const k::Tensor out = in["dtype"] == "string" ? layer->hash_strings(strings_of(in), shape_of(in))
                                                  : (*layer)(tensor_of(in));
    check_same(out, c["output"], label);
    // The config Kiln writes builds the same layer.
    CHECK(layer_of<L::HashingImpl>(k::Config{{"class_name", "Hashing"}, {"config", layer->get_config()}})
              ->get_config() == layer->get_config());
    ++n;
  }
  CHECK(n > 100);
}

TEST_CASE("HashedCrossing: Keras's outputs for integer and string features") {
  const json& cases = fixture()["hashed_crossing"];
  for (const json& c : cases) {
    auto layer = layer_of<L::HashedCrossingImpl>(c["config"]);
    const std::string label = c["config"]["config"].dump() + " on " + c["inputs"].dump().substr(0, 200);
    bool strings = false;
    for (const json& in : c["inputs"]) strings = strings || in["dtype"] == "string";
    if (!strings) {
      std::vector<k::Tensor> xs;
      for (const json& in : c["inputs"]) xs.push_back(tensor_of(in));
      check_same((*layer)(xs).at(0), c["output"], label);
      continue;
    }
    // Until Kiln has string tensors: the features as vectors, one value per sample.
    std::vector<L::CrossFeature> features;
    for (const json& in : c["inputs"]) {
      if (in["dtype"] == "string") {
        features.emplace_back(strings_of(in));
      } else {
        std::vector<int64_t> v;
        for (const auto& e : in["values"]) v.push_back(std::stoll(e.get<std::string>()));
        features.emplace_back(v);
      }
    }
    const k::Tensor got = layer->cross_features(features);
    INFO(label);
    const auto g = got.to_vector<double>();
    REQUIRE(g.size() == c["output"]["values"].size());
    for (std::size_t i = 0; i < g.size(); ++i) {
      const json& w = c["output"]["values"][i];
      CHECK(g[i] == (w.is_string() ? static_cast<double>(std::stoll(w.get<std::string>())) : w.get<double>()));
    }
  }
  // Keras's docstring: feat1 = ['A', 'B', 'A', 'B', 'A'], feat2 = [101, 101, 101, 102, 102].
  const std::vector<L::CrossFeature> doc{std::vector<std::string>{"A", "B", "A", "B", "A"},
                                         std::vector<int64_t>{101, 101, 101, 102, 102}};
  CHECK(L::HashedCrossing(5)->cross_features(doc).to_vector<int64_t>() == std::vector<int64_t>{1, 4, 1, 1, 3});
  const k::Tensor oh = L::HashedCrossing(5, {.output_mode = "one_hot"})->cross_features(doc);
  CHECK(oh.shape() == k::Shape{5, 5});
  CHECK(oh.to_vector<float>() == std::vector<float>{0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0,
                                                    0, 1, 0, 0, 0, 0, 0, 0, 1, 0});
}

TEST_CASE("Hashing and HashedCrossing: Keras's errors for bad arguments and inputs") {
  CHECK_THROWS_WITH_AS(L::Hashing(0), doctest::Contains("cannot be `None` or non-positive values. Received: num_bins=0"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::Hashing(3, {.salt = std::vector<int64_t>{1, 2, 3}}),
                       doctest::Contains("can only be a tuple of size 2 integers, or a single integer. Received: salt=[1, 2, 3]"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::Hashing(3, {.output_mode = "tf_idf"}),
                       doctest::Contains("Expected one of ('int', 'one_hot', 'multi_hot', 'count'). Received: output_mode=tf_idf"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::Hashing(3, {.dtype = k::DType::float64}),
                       doctest::Contains("`dtype` should be an integer type, 'int32' or 'in64'. Received: dtype=float64"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::Hashing(3, {.output_mode = "count", .sparse = true}), doctest::Contains("sparse=True"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::Hashing(3, {.mask_value = "x"})(k::Tensor(std::vector<int64_t>{1, 2}, k::Shape{2})),
                       doctest::Contains("mask_value 'x' is a string, but the input has dtype int64 and shape (2,)"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(L::Hashing(3, {.output_mode = "one_hot"})(k::Tensor(std::vector<int64_t>{4}, k::Shape{})),
                       doctest::Contains("needs an input of rank 1 or more"), k::ValueError);
  CHECK_THROWS_WITH_AS(L::HashedCrossing(3, {.output_mode = "multi_hot"}),
                       doctest::Contains("Allowed values are: ('int', 'one_hot'). Received: output_mode=multi_hot"),
                       k::ValueError);
  const k::Tensor a(std::vector<int64_t>{1, 2}, k::Shape{2});
  L::HashedCrossing cross(4);
  CHECK_THROWS_WITH_AS(cross(std::vector<k::Tensor>{a}), doctest::Contains("should be called on at least two inputs"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(cross(std::vector<k::Tensor>{a, k::Tensor(std::vector<int64_t>{1, 2, 3}, k::Shape{3})}),
                       doctest::Contains("should have equal shape. Received: inputs of shapes [(2,), (3,)]"), k::ValueError);
  CHECK_THROWS_WITH_AS(cross(std::vector<k::Tensor>{k::Tensor(std::vector<int64_t>{1, 2}, k::Shape{1, 2}),
                                                    k::Tensor(std::vector<int64_t>{1, 2}, k::Shape{1, 2})}),
                       doctest::Contains("should have shape `()`, `(batch_size)` or `(batch_size, 1)`"), k::ValueError);
  CHECK_THROWS_WITH_AS(cross(std::vector<k::Tensor>{a, k::Tensor(std::vector<float>{1, 2}, k::Shape{2})}),
                       doctest::Contains("should have an integer or string dtype"), k::ValueError);
}

}  // namespace test_hashing_values
