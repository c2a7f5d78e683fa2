#include "kiln/datasets/wordlists.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <unordered_map>

#include "core/number_text.h"
#include "kiln/core/error.h"
#include "latin_text.h"
#include "seeded_sampling.h"

namespace kiln::datasets::wordlists {

namespace {

namespace fs = std::filesystem;
using detail::sample_front;

std::string read_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    const std::string why = fs::exists(file) ? "cannot be read" : "does not exist";
    throw IOError("wordlists: " + file + " " + why +
                  " (Debian's packages wamerican wngerman wfrench wspanish witalian wportuguese wdutch install "
                  "the word lists in /usr/share/dict)");
  }
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool is_apostrophe(char32_t c) { return c == U'\'' || c == 0x2019; }

void shuffle_together(Words& w, std::mt19937_64& rng) {
  std::vector<std::size_t> order(w.words.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  sample_front(order, order.size(), rng);
  Words out;
  out.words.reserve(order.size());
  out.labels.reserve(order.size());
  for (std::size_t i : order) {
    out.words.push_back(std::move(w.words[i]));
    out.labels.push_back(w.labels[i]);
  }
  w = std::move(out);
}

// The lists with every word that occurs in more than one of them removed.
void drop_shared_words(std::vector<std::vector<std::string>>& lists) {
  std::unordered_map<std::string, int> count;
  for (const auto& list : lists)
    for (const auto& w : list) ++count[w];  // each list is already free of duplicates
  for (auto& list : lists)
    std::erase_if(list, [&](const std::string& w) { return count[w] > 1; });
}

}  // namespace

const std::vector<std::string>& languages() {
  static const std::vector<std::string> names = {"English", "German",     "French", "Spanish",
                                                 "Italian", "Portuguese", "Dutch"};
  return names;
}

const std::vector<std::string>& file_names() {
  static const std::vector<std::string> names = {"american-english", "ngerman",    "french", "spanish",
                                                 "italian",          "portuguese", "dutch"};
  return names;
}

std::string default_path() { return "/usr/share/dict"; }

std::vector<std::string> read_word_list(const std::string& file) {
  const std::string bytes = read_file(file);
  const bool utf8 = detail::is_valid_utf8(bytes);
  std::vector<std::string> words;
  std::istringstream lines(bytes);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::u32string w = utf8 ? detail::decode_utf8(line) : detail::decode_latin1(line);
    if (w.empty() || !detail::is_lower_letter(w[0])) continue;
    if (std::any_of(w.begin(), w.end(), is_apostrophe)) continue;
    for (char32_t& c : w) c = detail::to_lower(c);
    words.push_back(detail::encode_utf8(w));
  }
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  return words;
}

TrainTestWords load_words(const Options& options) {
  if (options.words_per_language <= 0)
    throw ValueError("wordlists: words_per_language must be positive, got " +
                     std::to_string(options.words_per_language));
  if (!(options.test_fraction >= 0.0 && options.test_fraction < 1.0))
    throw ValueError("wordlists: test_fraction must be in [0, 1), got " + kiln::detail::number_text(options.test_fraction));
  const fs::path dir = options.path.empty() ? default_path() : options.path;
  std::vector<std::vector<std::string>> lists;
  for (const std::string& name : file_names()) lists.push_back(read_word_list((dir / name).string()));
  drop_shared_words(lists);

  const auto per_language = static_cast<std::size_t>(options.words_per_language);
  const auto n_test = static_cast<std::size_t>(
      std::llround(options.test_fraction * static_cast<double>(options.words_per_language)));
  std::mt19937_64 rng(options.seed);
  TrainTestWords out;
  for (std::size_t lang = 0; lang < lists.size(); ++lang) {
    std::vector<std::string>& list = lists[lang];
    if (list.size() < per_language)
      throw ValueError("wordlists: " + (dir / file_names()[lang]).string() + " has " + std::to_string(list.size()) +
                       " usable words, fewer than words_per_language = " + std::to_string(per_language));
    sample_front(list, per_language, rng);
    for (std::size_t i = 0; i < per_language; ++i) {
      Words& split = i < n_test ? out.test : out.train;
      split.words.push_back(std::move(list[i]));
      split.labels.push_back(static_cast<int64_t>(lang));
    }
  }
  shuffle_together(out.train, rng);
  shuffle_together(out.test, rng);
  return out;
}

std::u32string characters(const std::string& word) { return detail::decode_utf8(word); }

std::vector<char32_t> char_vocabulary(const std::vector<std::string>& words) {
  std::vector<char32_t> chars;
  for (const std::string& w : words)
    for (char32_t c : characters(w)) chars.push_back(c);
  std::sort(chars.begin(), chars.end());
  chars.erase(std::unique(chars.begin(), chars.end()), chars.end());
  return chars;
}

Tensor encode(const std::vector<std::string>& words, const std::vector<char32_t>& vocabulary, int64_t max_length) {
  if (max_length <= 0)
    throw ValueError("wordlists::encode: max_length must be positive, got " + std::to_string(max_length));
  std::vector<int64_t> ids(words.size() * static_cast<std::size_t>(max_length), kPaddingId);
  for (std::size_t row = 0; row < words.size(); ++row) {
    const std::u32string chars = characters(words[row]);
    const std::size_t n = std::min(chars.size(), static_cast<std::size_t>(max_length));
    for (std::size_t t = 0; t < n; ++t) {
      auto it = std::lower_bound(vocabulary.begin(), vocabulary.end(), chars[t]);
      ids[row * static_cast<std::size_t>(max_length) + t] =
          it != vocabulary.end() && *it == chars[t] ? 2 + (it - vocabulary.begin()) : kUnknownId;
    }
  }
  return Tensor(ids, Shape{static_cast<int64_t>(words.size()), max_length});
}

}  // namespace kiln::datasets::wordlists
