// TextVectorization against Keras 3.15.1 on TensorFlow 2.21: each expected
// vocabulary and output is what Keras gave for the same texts and options.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/data/dataset.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "kiln/ops/ragged.h"
#include "test_util.h"

namespace k = kiln;
namespace L = kiln::layers;
using kiln_test::check_values;

namespace {
using Strings = std::vector<std::string>;
const Strings kTexts{"The Cat sat on the mat.", "The dog ate my homework!", "Cats and dogs, cats & DOGS?", "",
                     "   spaces   everywhere  "};
k::Tensor texts() { return k::Tensor(kTexts, k::Shape{static_cast<int64_t>(kTexts.size())}); }
}  // namespace

TEST_CASE("TextVectorization: adapt and int outputs as Keras") {
  L::TextVectorization tv({.max_tokens = 12, .output_sequence_length = 6});
  tv->adapt(texts());
  CHECK(tv->get_vocabulary() ==
        Strings{"", "[UNK]", "the", "dogs", "cats", "spaces", "sat", "on", "my", "mat", "homework", "everywhere"});
  k::Tensor ids = tv(texts());
  CHECK(ids.dtype() == k::int64);
  CHECK(ids.shape() == k::Shape{5, 6});
  check_values(ids, {2, 1, 6, 7, 2, 9, 2, 1, 1, 8, 10, 0, 4, 1, 3, 4, 3, 0, 0, 0, 0, 0, 0, 0, 5, 11, 0, 0, 0, 0});
  // Keras's config: an adapted vocabulary is not in it (a .keras file keeps it as an asset).
  const k::Config cfg = tv->get_config();
  CHECK(cfg["standardize"] == "lower_and_strip_punctuation");
  CHECK(cfg["split"] == "whitespace");
  CHECK(cfg["ngrams"].is_null());
  CHECK(cfg["output_sequence_length"] == 6);
  CHECK(cfg["vocabulary_size"] == 12);
  CHECK(cfg["vocabulary"].is_null());
  auto copy = std::dynamic_pointer_cast<L::TextVectorizationImpl>(k::layers::from_config(k::layers::serialize(*tv.ptr())));
  REQUIRE(copy);
  check_values((*copy)(k::Tensor({"the mat sat", "zebra"})), {1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0});
  copy->set_vocabulary(tv->get_vocabulary());
  check_values((*copy)(k::Tensor({"the mat sat", "zebra"})), {2, 9, 6, 0, 0, 0, 1, 0, 0, 0, 0, 0});
  // Without max_tokens or a length: every token, rows padded to the longest.
  L::TextVectorization all;
  all->adapt(texts());
  check_values(all(texts()), {2, 13, 6, 7, 2, 9, 2, 12, 14, 8, 10, 0, 4, 15, 3, 4, 3, 0, 0, 0, 0, 0, 0, 0, 5, 11, 0, 0, 0, 0});
  // Adapting from a Dataset of batches gives the same vocabulary.
  L::TextVectorization from_ds;
  from_ds->adapt(k::Dataset::from_tensor_slices(texts()).batch(2));
  CHECK(from_ds->get_vocabulary() == all->get_vocabulary());
}

TEST_CASE("TextVectorization: ngrams, multi_hot, tf_idf, count, characters, no split") {
  L::TextVectorization bi({.ngrams = 2, .output_mode = "multi_hot"});
  bi->adapt(texts());
  CHECK(bi->get_vocabulary() ==
        Strings{"[UNK]", "the", "dogs", "cats", "the mat", "the dog", "the cat", "spaces everywhere", "spaces", "sat on",
                "sat", "on the", "on", "my homework", "my", "mat", "homework", "everywhere", "dogs cats", "dog ate",
                "dog", "cats dogs", "cats and", "cat sat", "cat", "ate my", "ate", "and dogs", "and"});
  k::Tensor mh = bi(k::Tensor({"the cat the cat", "dogs ate"}));
  CHECK(mh.shape() == k::Shape{2, 29});
  std::vector<double> want(58, 0.0);
  for (int i : {0, 1, 6, 24}) want[static_cast<std::size_t>(i)] = 1;
  for (int i : {0, 2, 26}) want[static_cast<std::size_t>(29 + i)] = 1;
  check_values(mh, want);
  L::TextVectorization tfidf({.standardize = "lower", .output_mode = "tf_idf"});
  tfidf->adapt(texts());
  CHECK(tfidf->get_vocabulary() == Strings{"[UNK]", "the", "cats", "spaces", "sat", "on", "my", "mat.", "homework!",
                                           "everywhere", "dogs?", "dogs,", "dog", "cat", "ate", "and", "&"});
  k::Tensor w = tfidf(k::Tensor({"the cat.", "the the zebra"}));
  CHECK(w.dtype() == k::float32);
  std::vector<double> wv(34, 0.0);
  wv[0] = 1.2357670068740845, wv[1] = 0.9808290004730225, wv[17] = 1.2357670068740845, wv[18] = 1.961658000946045;
  check_values(w, wv, 1e-6);
  L::TextVectorization chars({.standardize = std::nullopt, .split = "character", .output_sequence_length = 4,
                              .vocabulary = Strings{"a", "b", "c"}});
  check_values(chars(k::Tensor({"abcd", "ca"})), {2, 3, 4, 1, 4, 2, 0, 0});
  CHECK(chars->get_vocabulary() == Strings{"", "[UNK]", "a", "b", "c"});
  L::TextVectorization count({.max_tokens = 6, .output_mode = "count", .pad_to_max_tokens = true,
                              .vocabulary = Strings{"x", "y"}});
  check_values(count(k::Tensor({{"x y x z"}, {"y"}})), {1, 2, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0});
  L::TextVectorization whole({.standardize = "strip_punctuation", .split = std::nullopt, .vocabulary = Strings{"a b", "c"}});
  check_values(whole(k::Tensor({"a b!", "c", "d"})), {2, 3, 1});
  // tokenize() shows the pipeline's tokens.
  CHECK(bi->tokenize(k::Tensor({"A b!"})).to_list<std::string>() == std::vector<Strings>{{"a", "b", "a b"}});
}

TEST_CASE("TextVectorization: Keras's errors") {
  CHECK_THROWS_AS(L::TextVectorization({.standardize = "upper"}), k::ValueError);
  CHECK_THROWS_AS(L::TextVectorization({.split = "comma"}), k::ValueError);
  CHECK_THROWS_AS(L::TextVectorization({.output_mode = "count", .output_sequence_length = 3}), k::ValueError);
  CHECK_THROWS_AS(L::TextVectorization({.ragged = true}), k::ValueError);
  L::TextVectorization tv({.vocabulary = Strings{"a"}});
  CHECK_THROWS_WITH_AS(tv(k::Tensor({{"a", "b"}})), doctest::Contains("the input rank must be 1 or the last shape dimension must be 1"),
                       k::ValueError);
  CHECK_THROWS_WITH_AS(tv(k::Tensor({1.0})), doctest::Contains("expected a string tensor, but received dtype float32"),
                       k::TypeError);
  CHECK_THROWS_AS(tv->adapt(texts()), k::ValueError);  // a given vocabulary is fixed
  CHECK_THROWS_AS(L::TextVectorization({.output_mode = "multi_hot"})(texts()), k::RuntimeError);
}

TEST_CASE("TextVectorization: Keras's None in a config is no standardization and no split") {
  // Keras writes "standardize": null and "split": null; the options default to values, so null must not keep them.
  const k::Config entry = {{"class_name", "TextVectorization"},
                           {"config", {{"name", "tv"}, {"standardize", nullptr}, {"split", nullptr}}}};
  auto tv = std::dynamic_pointer_cast<L::TextVectorizationImpl>(k::layers::from_config(entry));
  REQUIRE(tv);
  CHECK_FALSE(tv->options().standardize.has_value());
  CHECK_FALSE(tv->options().split.has_value());
  tv->adapt(k::Tensor({"Hi there", "hi", "Hi there"}));
  CHECK(tv->get_vocabulary() == Strings{"", "[UNK]", "Hi there", "hi"});
  CHECK(tv->get_config()["standardize"].is_null());
  // Absent keys keep the defaults.
  auto plain = std::dynamic_pointer_cast<L::TextVectorizationImpl>(
      k::layers::from_config({{"class_name", "TextVectorization"}, {"config", {{"name", "tv2"}}}}));
  REQUIRE(plain);
  CHECK(plain->options().standardize->name == "lower_and_strip_punctuation");
}

TEST_CASE("TextVectorization: standardize and split functions, named in configs as Keras names them") {
  // keras.io's custom_standardization, and a split on commas, registered as Keras's
  // @register_keras_serializable(package="demo") names them; Keras 3.15 learns the same vocabulary.
  const L::Standardize custom("demo>custom_standardization", [](const k::Tensor& x) {
    return k::strings::regex_replace(k::strings::lower(x), "<br />", " ");
  });
  const L::Split commas("demo>split_commas", [](const k::Tensor& x) { return k::strings::split(x, ","); });
  L::TextVectorization tv({.standardize = custom, .split = commas});
  tv->adapt(k::Tensor({"a,b<br />c", "B,a"}));
  CHECK(tv->get_vocabulary() == Strings{"", "[UNK]", "a", "b c", "b"});
  check_values(tv(k::Tensor({"B<br />C,A", "zebra"})), {3, 2, 1, 0});
  const k::Config cfg = tv->get_config();
  CHECK(cfg["standardize"] == k::Config({{"module", "builtins"}, {"class_name", "function"},
                                         {"config", "demo>custom_standardization"}, {"registered_name", "function"}}));
  CHECK(cfg["split"]["config"] == "demo>split_commas");
  auto copy = std::dynamic_pointer_cast<L::TextVectorizationImpl>(k::layers::from_config(k::layers::serialize(*tv.ptr())));
  REQUIRE(copy);
  copy->set_vocabulary(tv->get_vocabulary());
  check_values((*copy)(k::Tensor({"B<br />C,A", "zebra"})), {3, 2, 1, 0});
  k::Config unknown = k::layers::serialize(*tv.ptr());
  unknown["config"]["standardize"]["config"] = "demo>nowhere";
  CHECK_THROWS_WITH_AS(k::layers::from_config(unknown),
                       doctest::Contains("`standardize` is the function 'demo>nowhere', which is not registered in this "
                                         "program: call kiln::layers::register_standardize(\"demo>nowhere\", function)"),
                       k::ValueError);
  L::TextVectorization bad({.standardize = L::Standardize("demo>length", [](const k::Tensor& x) {
    return k::strings::length(x);
  })});
  CHECK_THROWS_WITH_AS(bad->adapt(k::Tensor({"a"})), doctest::Contains("must return a string tensor"), k::ValueError);
}
