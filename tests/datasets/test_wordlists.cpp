// Tests for kiln::datasets::wordlists: decoding (UTF-8 and ISO-8859-1),
// lower-casing, the filters and the split on small lists written here, and the
// documented split of Debian's real word lists when they are installed.
#include <doctest/doctest.h>

#include "test_util.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "temp_dir.h"
#include "kiln/datasets/wordlists.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_wordlists {

namespace fs = std::filesystem;
namespace wl = kiln::datasets::wordlists;

namespace {

using kiln_test::TempDir;

void write(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
}

// Seven small lists: language i has the words "<letter><i>" for `n` letters, plus `extra`.
void write_lists(const fs::path& dir, int n, const std::vector<std::string>& extra = {}) {
  for (std::size_t lang = 0; lang < wl::file_names().size(); ++lang) {
    std::string text;
    for (int w = 0; w < n; ++w) text += "w" + std::to_string(w) + "x" + std::to_string(lang) + "\n";
    if (lang < extra.size()) text += extra[lang];
    write(dir / wl::file_names()[lang], text);
  }
}

}  // namespace

TEST_CASE("wordlists: UTF-8 words are lower-cased; proper nouns, apostrophes and duplicates go") {
  TempDir dir("kiln_wordlists");
  // "Éric" and "Zürich" start upper-case; "l'eau" and "aujourd’hui" have apostrophes;
  // "éTÉ" and "été" are one word once lower-cased; "ŁÓDŹ" starts upper-case.
  write(dir.path / "list",
        "été\néTÉ\nÉric\nZürich\nl'eau\naujourd’hui\nœuvre\nstraße\nŁÓDŹ\nżÓŁW\r\n\n-ish\n");
  const std::vector<std::string> words = wl::read_word_list((dir.path / "list").string());
  CHECK(words == std::vector<std::string>{"straße", "été", "œuvre", "żółw"});  // sorted by bytes
}

TEST_CASE("wordlists: a list that is not UTF-8 is read as ISO-8859-1") {
  TempDir dir("kiln_wordlists");
  // "über", "Äpfel", "fußÄ" and "ça" in ISO-8859-1 bytes.
  write(dir.path / "list", "\xFC" "ber\n\xC4pfel\nfu\xDF\xC4\n\xE7" "a\n");
  const std::vector<std::string> words = wl::read_word_list((dir.path / "list").string());
  CHECK(words == std::vector<std::string>{"fußä", "ça", "über"});
}

TEST_CASE("wordlists: the split is balanced, disjoint, free of shared words and fixed by the seed") {
  TempDir dir("kiln_wordlists");
  // "shared" is in two lists and must be in neither split; "solo" only in the last.
  write_lists(dir.path, 30, {"shared\n", "shared\n", "", "", "", "", "solo\n"});
  const wl::Options options{.path = dir.path.string(), .words_per_language = 20, .test_fraction = 0.25, .seed = 5};
  const wl::TrainTestWords a = wl::load_words(options);
  REQUIRE(a.train.words.size() == 7 * 15);
  REQUIRE(a.test.words.size() == 7 * 5);
  REQUIRE(a.train.labels.size() == a.train.words.size());
  std::map<int64_t, int> per_language;
  for (int64_t l : a.test.labels) ++per_language[l];
  CHECK(per_language.size() == 7);
  for (auto [lang, n] : per_language) CHECK(n == 5);
  std::set<std::string> seen;
  for (const wl::Words* split : {&a.train, &a.test})
    for (std::size_t i = 0; i < split->words.size(); ++i) {
      const std::string& w = split->words[i];
      CHECK(seen.insert(w).second);  // no word twice, within or across the splits
      CHECK(w != "shared");
      // Each word's label is the list it came from.
      if (w != "solo") CHECK(w.back() - '0' == split->labels[i]);
      else CHECK(split->labels[i] == 6);
    }
  const wl::TrainTestWords again = wl::load_words(options);
  CHECK(again.train.words == a.train.words);
  CHECK(again.test.labels == a.test.labels);
  wl::Options other = options;
  other.seed = 6;
  CHECK(wl::load_words(other).train.words != a.train.words);
  // Both splits are shuffled, not grouped by language.
  CHECK_FALSE(std::is_sorted(a.train.labels.begin(), a.train.labels.end()));
}

TEST_CASE("wordlists: a missing list and too few words are clear errors") {
  TempDir dir("kiln_wordlists");
  write_lists(dir.path, 10);
  const std::string too_many = kiln_test::message_of<kiln::ValueError>(
      [&] { wl::load_words({.path = dir.path.string(), .words_per_language = 11}); });
  CHECK_HAS(too_many, "american-english has 10 usable words");
  fs::remove(dir.path / "dutch");
  const std::string missing = kiln_test::message_of<kiln::IOError>(
      [&] { wl::load_words({.path = dir.path.string(), .words_per_language = 5}); });
  CHECK_HAS(missing, (dir.path / "dutch").string());
  CHECK_HAS(missing, "wdutch");
}

TEST_CASE("wordlists: encode gives character ids padded with 0 and cut at max_length") {
  const std::vector<std::string> words = {"abé", "ba", "ébbbb"};
  const std::vector<char32_t> vocabulary = wl::char_vocabulary(words);
  CHECK(vocabulary == std::vector<char32_t>{U'a', U'b', U'é'});
  const kiln::Tensor x = wl::encode({"abé", "", "ébbbbb", "az"}, vocabulary, 4);
  CHECK(x.dtype() == kiln::DType::int64);
  CHECK(x.shape() == kiln::Shape{4, 4});
  // a=2, b=3, é=4; z is not in the vocabulary (1); 0 pads.
  CHECK(x.to_vector<int64_t>() == std::vector<int64_t>{2, 3, 4, 0, 0, 0, 0, 0, 4, 3, 3, 3, 2, 1, 0, 0});
  CHECK_THROWS_AS(wl::encode(words, vocabulary, 0), kiln::ValueError);
}

TEST_CASE("wordlists: Debian's seven lists give the documented 112,000 / 28,000 split") {
  const fs::path dir = wl::default_path();
  bool all = true;
  for (const std::string& f : wl::file_names()) all = all && fs::exists(dir / f);
  KILN_REQUIRE_TOOL(all, "the word lists in " << dir.string()
                             << " (Debian packages wamerican wngerman wfrench wspanish witalian wportuguese wdutch)");
  const wl::TrainTestWords split = wl::load_words();
  CHECK(split.train.words.size() == 112000);
  CHECK(split.test.words.size() == 28000);
  std::map<int64_t, int> per_language;
  for (int64_t l : split.test.labels) ++per_language[l];
  for (auto [lang, n] : per_language) CHECK(n == 4000);
  CHECK(per_language.size() == 7);
  const std::set<std::string> train(split.train.words.begin(), split.train.words.end());
  CHECK(train.size() == split.train.words.size());
  for (const std::string& w : split.test.words) {
    CHECK_FALSE(train.contains(w));
    CHECK(w.find('\'') == std::string::npos);
  }
  // The non-ASCII letters of the seven languages are all there, in lower case only.
  const std::vector<char32_t> chars = wl::char_vocabulary(split.train.words);
  for (char32_t c : {U'ä', U'ß', U'é', U'ç', U'ñ', U'ã', U'ì'})
    CHECK(std::binary_search(chars.begin(), chars.end(), c));
  for (char32_t c : {U'A', U'Z', U'É', U'Ä', U'Ñ'}) CHECK_FALSE(std::binary_search(chars.begin(), chars.end(), c));
}

}  // namespace test_wordlists
