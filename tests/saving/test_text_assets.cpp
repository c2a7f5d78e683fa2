// .keras files that Keras 3.15.1 (on TensorFlow 2.21) wrote with adapted text
// layers, whose vocabularies are assets of the archive rather than part of the
// config: tests/fixtures/text/, made by its make_fixture.py, with what Keras
// computed from them.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/io/saving.h"
#include "kiln/layers.h"
#include "kiln/ops/ops.h"
#include "kiln/training/model.h"
#include "test_util.h"

namespace k = kiln;
namespace L = kiln::layers;
using kiln_test::check_values;
using json = nlohmann::json;

namespace {
std::string fixture(const std::string& name) { return std::string(KILN_SOURCE_DIR) + "/tests/fixtures/text/" + name; }

json expected() {
  std::ifstream in(fixture("text_assets.json"));
  return json::parse(in);
}

std::vector<double> flat(const json& rows) {
  std::vector<double> v;
  for (const auto& r : rows)
    for (const auto& x : r) v.push_back(x.get<double>());
  return v;
}

k::Tensor column(const std::vector<std::string>& texts) {
  return k::Tensor(texts, k::Shape{static_cast<int64_t>(texts.size()), 1});
}
}  // namespace

TEST_CASE("text assets: Keras's adapted TextVectorization loads with its vocabulary") {
  const json e = expected();
  auto model = k::models::load_model(fixture("text_vectorization.keras"));
  auto vec = std::dynamic_pointer_cast<L::TextVectorizationImpl>(model->layers().at(1));
  REQUIRE(vec);
  CHECK(vec->get_vocabulary() == e["vectorization_vocabulary"].get<std::vector<std::string>>());
  const auto probe = e["probe"].get<std::vector<std::string>>();
  check_values((*vec)(k::Tensor(probe, k::Shape{static_cast<int64_t>(probe.size())})), flat(e["vectorization_ids"]));
  check_values((*model)(column(probe)), flat(e["vectorization_output"]), 1e-6);
  // Saved again by Kiln (the vocabulary as the same asset) and loaded back: the same outputs.
  const std::string again = (std::filesystem::temp_directory_path() / "kiln_text_assets_again.keras").string();
  model->save(again);
  auto back = k::models::load_model(again);
  check_values((*back)(column(probe)), flat(e["vectorization_output"]), 1e-6);
  std::filesystem::remove(again);
}

TEST_CASE("text assets: Keras's adapted StringLookup and multi-hot TextVectorization") {
  const json e = expected();
  auto model = k::models::load_model(fixture("lookups.keras"));
  std::shared_ptr<L::StringLookupImpl> words;
  std::shared_ptr<L::TextVectorizationImpl> bag;
  for (const auto& l : model->layers()) {
    if (auto w = std::dynamic_pointer_cast<L::StringLookupImpl>(l)) words = w;
    if (auto b = std::dynamic_pointer_cast<L::TextVectorizationImpl>(l)) bag = b;
  }
  REQUIRE(words);
  REQUIRE(bag);
  CHECK(words->get_vocabulary() == e["lookup_vocabulary"].get<std::vector<std::string>>());
  CHECK(bag->get_vocabulary() == e["bag_vocabulary"].get<std::vector<std::string>>());
  std::vector<std::string> probe_words;
  for (const auto& row : e["probe_words"])
    for (const auto& w : row) probe_words.push_back(w.get<std::string>());
  const auto probe = e["probe"].get<std::vector<std::string>>();
  auto outs = (*model)(std::vector<k::Tensor>{k::Tensor(probe_words, k::Shape{2, 3}), column({probe[0], probe[1]})});
  REQUIRE(outs.size() == 2);
  check_values(outs[0], flat(e["lookup_ids"]));
  check_values(outs[1], flat(e["bag_multi_hot"]));
}

TEST_CASE("text assets: a vocabulary file that does not parse names the file and line") {
  L::IntegerLookup ints;
  CHECK_THROWS_WITH_AS(ints->load_assets({{"vocabulary.txt", "-1\n12\nx7\n"}}, "m.keras[assets/layers/integer_lookup/]"),
                       "m.keras[assets/layers/integer_lookup/]vocabulary.txt: line 3 ('x7') is not an integer token",
                       k::IOError);
  L::StringLookup strs;
  CHECK_THROWS_WITH_AS(strs->load_assets({{"vocabulary.txt", "[UNK]\nok\nbad\xff\n"}}, "m.keras[assets/layers/string_lookup/]"),
                       doctest::Contains("vocabulary.txt: line 3 is not valid UTF-8"), k::IOError);
  CHECK_THROWS_WITH_AS(strs->load_assets({{"vocabulary.txt", "[UNK]\na\na\n"}}, "f["),
                       doctest::Contains("f[vocabulary.txt: The passed vocabulary has at least one repeated term"),
                       k::IOError);
  L::StringLookup given({.vocabulary = std::vector<std::string>{"p", "q"}});
  given->load_assets({{"vocabulary.txt", "[UNK]\nz\n"}}, "f[");  // a vocabulary in the config wins, as in Keras
  CHECK(given->get_vocabulary() == std::vector<std::string>{"[UNK]", "p", "q"});
  strs->load_assets({{"vocabulary.txt", "[UNK]\r\nx\r\ny\n\n"}}, "f[");
  CHECK(strs->get_vocabulary() == std::vector<std::string>{"[UNK]", "x", "y"});
}

TEST_CASE("text assets: Kiln writes adapted vocabularies and tf_idf weights as Keras does, and reads them back") {
  L::TextVectorization tv({.max_tokens = 8, .output_mode = "tf_idf"});
  tv->adapt(k::Tensor({"a b c a", "b c d", "e a"}));
  // Keras 3.15's vocabulary.txt and idf weights for these texts (its get_vocabulary() and idf_weights).
  CHECK(tv->save_assets() == k::AssetFiles{{"vocabulary.txt", "[UNK]\na\nc\nb\ne\nd"}});
  CHECK(tv->get_config()["vocabulary"].is_null());
  CHECK(tv->get_config()["idf_weights"].is_null());
  const auto stored = tv->stored_variables();
  REQUIRE(stored.size() == 1);
  CHECK(stored[0].key == "idf_weights");
  check_values(stored[0].variable.read_value_untracked(),
               {0.7824046, 0.6931472, 0.6931472, 0.6931472, 0.91629076, 0.91629076}, 1e-6);
  CHECK(tv->weights().empty());  // not a Keras weight
  L::StringLookup given({.vocabulary = std::vector<std::string>{"x", "y"}});
  CHECK(given->save_assets().empty());  // the config carries a given vocabulary
  L::IntegerLookup ints({.max_tokens = 4});
  ints->adapt(k::Tensor(std::vector<int64_t>{7, 7, 3, 9, 9, 9}, k::Shape{6}));
  CHECK(ints->save_assets() == k::AssetFiles{{"vocabulary.txt", "-1\n9\n7\n3"}});

  auto in = k::Input({}, {.dtype = k::string_});
  k::Model model(in, tv(in));
  const auto texts = k::Tensor({"a a b", "e zebra", ""});
  const k::Tensor before = model(texts);
  const std::string path = (std::filesystem::temp_directory_path() / "kiln_text_assets_tfidf.keras").string();
  model.save(path);
  auto back = k::models::load_model(path);
  const std::vector<float> want = before.to_vector<float>();
  check_values((*back)(texts), std::vector<double>(want.begin(), want.end()), 1e-7);
  auto loaded = std::dynamic_pointer_cast<L::TextVectorizationImpl>(back->layers().at(1));
  REQUIRE(loaded);
  CHECK(loaded->get_vocabulary() == tv->get_vocabulary());
  std::filesystem::remove(path);
}

TEST_CASE("text assets: a legacy .h5 save says that it drops an adapted vocabulary") {
  L::StringLookup words;
  words->adapt(k::Tensor({"x", "y", "y"}));
  auto in = k::Input({}, {.dtype = k::string_});
  k::Model model(in, words(in));
  const std::string path = (std::filesystem::temp_directory_path() / "kiln_text_assets_legacy.h5").string();
  std::ostringstream err;
  std::streambuf* saved = std::cerr.rdbuf(err.rdbuf());
  model.save(path);
  std::cerr.rdbuf(saved);
  CHECK(err.str().find("layer '" + words->name() + "' (StringLookup) keeps its adapted vocabulary in asset files, "
                       "which legacy .h5 files do not hold") != std::string::npos);
  auto back = k::models::load_model(path);
  check_values((*back)(k::Tensor({"y", "x"})), {0, 0});  // as Keras: no vocabulary, every token out of vocabulary
  std::filesystem::remove(path);
}
