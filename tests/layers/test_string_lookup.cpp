// StringLookup, and IntegerLookup's "farmhash" OOV method, against Keras 3.15.1 on
// TensorFlow 2.21: each expected value is what Keras returned for the same call.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "test_util.h"

namespace k = kiln;
namespace L = kiln::layers;
using kiln_test::check_values;

namespace {
using Strings = std::vector<std::string>;
k::Tensor text(const Strings& v, k::Shape s) { return k::Tensor(v, s); }
}  // namespace

TEST_CASE("StringLookup: lookups, masks, hashed OOV indices and invert as Keras") {
  L::StringLookup s({.vocabulary = Strings{"a", "b", "c"}});
  k::Tensor ids = s(text({"a", "c", "d", "d", "z", "b"}, {2, 3}));
  CHECK(ids.dtype() == k::int64);
  check_values(ids, {1, 3, 0, 0, 0, 2});
  const k::Tensor words = text({"a", "d", "zz", "hello", "c"}, {5});
  check_values(L::StringLookup({.num_oov_indices = 3, .vocabulary = Strings{"a", "b", "c"}})(words), {3, 2, 1, 1, 5});
  check_values(L::StringLookup({.num_oov_indices = 3, .vocabulary = Strings{"a", "b", "c"}, .salt = std::vector<int64_t>{7}})(words),
               {3, 1, 2, 2, 5});
  check_values(L::StringLookup({.mask_token = "", .vocabulary = Strings{"a", "b", "c"}})(text({"a", "", "q"}, {3})), {2, 0, 1});
  k::Tensor back = L::StringLookup({.vocabulary = Strings{"a", "b", "c"}, .invert = true})(
      k::Tensor(std::vector<int64_t>{1, 3, 0, 2, 9, 1}, k::Shape{2, 3}));
  CHECK(back.dtype() == k::string_);
  CHECK(back.to_vector<std::string>() == Strings{"a", "c", "[UNK]", "b", "[UNK]", "a"});
  k::Tensor masked = L::StringLookup({.mask_token = "[M]", .vocabulary = Strings{"a", "b", "c"}, .invert = true})(
      k::Tensor(std::vector<int64_t>{0, 1, 4}, k::Shape{1, 3}));
  CHECK(masked.to_vector<std::string>() == Strings{"[M]", "[UNK]", "c"});
  check_values(L::StringLookup({.vocabulary = Strings{"a", "b", "c"}, .output_mode = "multi_hot"})(text({"a", "c", "z", "z"}, {2, 2})),
               {0, 1, 0, 1, 1, 0, 0, 0});
}

TEST_CASE("StringLookup.adapt: by count, ties by the greater string; tf_idf") {
  L::StringLookup a;
  a->adapt(text({"the", "cat", "the", "dog", "bird", "cat", "the", "ant"}, {8}));
  CHECK(a->get_vocabulary() == Strings{"[UNK]", "the", "cat", "dog", "bird", "ant"});
  L::StringLookup t({.output_mode = "tf_idf"});
  t->adapt(text({"a", "b", "c", "a", "a", "d", "b", "e", "e"}, {3, 3}));
  CHECK(t->get_vocabulary() == Strings{"[UNK]", "a", "e", "b", "d", "c"});
  check_values(t(text({"a", "e", "q", "a"}, {4})), {0.8270333409309387, 1.3862943649291992, 0.9162907600402832, 0, 0, 0}, 1e-6);
  // As in Keras, the config carries no adapted vocabulary (a .keras file keeps it as an asset).
  CHECK(a->get_config()["vocabulary"].is_null());
  auto copy = std::dynamic_pointer_cast<L::StringLookupImpl>(k::layers::from_config(k::layers::serialize(*a.ptr())));
  REQUIRE(copy);
  check_values((*copy)(text({"ant", "the", "owl"}, {3})), {0, 0, 0});
  copy->set_vocabulary(a->get_vocabulary());
  check_values((*copy)(text({"ant", "the", "owl"}, {3})), {5, 1, 0});
}

TEST_CASE("StringLookup: Keras's errors") {
  CHECK_THROWS_WITH_AS(L::StringLookup({.vocabulary = Strings{"a", "b", "a"}}),
                       "The passed vocabulary has at least one repeated term. Please uniquify your dataset. The repeated "
                       "terms are: ['a']",
                       k::ValueError);
  CHECK_THROWS_AS(L::StringLookup({.encoding = "latin-1"}), k::ValueError);
  CHECK_THROWS_WITH_AS(L::StringLookup({.vocabulary = Strings{"a"}})(k::Tensor({1, 2})),
                       doctest::Contains("StringLookup: expected a string tensor, but received dtype int32"), k::TypeError);
  CHECK_THROWS_WITH_AS(L::StringLookup({.num_oov_indices = 0, .vocabulary = Strings{"a"}})(k::Tensor({"a", "b"})),
                       doctest::Contains("found OOV values ['b']"), k::InvalidArgumentError);
}

TEST_CASE("IntegerLookup: oov_method farmhash hashes the decimal text, as Keras") {
  const k::Tensor x(std::vector<int64_t>{1, 5, 7, 100, -3}, k::Shape{5});
  check_values(L::IntegerLookup({.num_oov_indices = 3, .vocabulary = std::vector<int64_t>{1, 2}, .oov_method = "farmhash"})(x),
               {3, 1, 1, 0, 0});
  check_values(L::IntegerLookup({.num_oov_indices = 3, .vocabulary = std::vector<int64_t>{1, 2}, .oov_method = "farmhash",
                                 .salt = std::vector<int64_t>{133, 137}})(x),
               {3, 1, 2, 0, 1});
}

TEST_CASE("Hashing and HashedCrossing take string tensors") {
  // Keras's Hashing docstring: [['A'], ['B'], ['C'], ['D'], ['E']] -> [[1], [0], [1], [1], [2]].
  check_values(L::Hashing(3)(text({"A", "B", "C", "D", "E"}, {5, 1})), {1, 0, 1, 1, 2});
  // Keras's HashedCrossing docstring: ('A', 101), ('B', 101), ... with 5 bins.
  k::Tensor a = text({"A", "B", "A", "B", "A"}, {5});
  k::Tensor b(std::vector<int64_t>{101, 101, 101, 102, 102}, k::Shape{5});
  check_values(L::HashedCrossing(5)(std::vector<k::Tensor>{a, b}), {1, 4, 1, 1, 3});
}
