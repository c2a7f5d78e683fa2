#include "kiln/datasets/fortunes.h"

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

namespace kiln::datasets::fortunes {

namespace {

namespace fs = std::filesystem;

std::string read_bytes(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    const std::string why = fs::exists(file) ? "cannot be read" : "does not exist";
    throw IOError("fortunes: " + file + " " + why +
                  " (Debian's packages fortunes and fortunes-min install the collections in "
                  "/usr/share/games/fortunes)");
  }
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool is_blank(const std::string& line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t'; });
}

// The lines of an entry without the blank lines around it, joined by "\n" and made
// valid UTF-8 (a stray Latin-1 byte becomes U+FFFD rather than an error later).
std::string entry_text(std::vector<std::string>& lines) {
  std::size_t begin = 0, end = lines.size();
  while (begin < end && is_blank(lines[begin])) ++begin;
  while (end > begin && is_blank(lines[end - 1])) --end;
  std::string text;
  for (std::size_t i = begin; i < end; ++i) {
    if (i > begin) text += '\n';
    text += lines[i];
  }
  lines.clear();
  return detail::is_valid_utf8(text) ? text : detail::encode_utf8(detail::decode_utf8(text));
}

// Each collection's distinct entries, sorted (so that the seed alone fixes the
// split), without the entries that more than one collection holds.
std::vector<std::vector<std::string>> distinct_entries(const Options& options) {
  if (options.collections.size() < 2)
    throw ValueError("fortunes: at least two collections are needed to classify, got " +
                     std::to_string(options.collections.size()));
  const fs::path dir = options.path.empty() ? default_path() : options.path;
  std::vector<std::vector<std::string>> entries;
  std::unordered_map<std::string, int> holders;
  for (std::size_t c = 0; c < options.collections.size(); ++c) {
    const std::string& name = options.collections[c];
    if (std::find(options.collections.begin(), options.collections.begin() + static_cast<std::ptrdiff_t>(c), name) !=
        options.collections.begin() + static_cast<std::ptrdiff_t>(c))
      throw ValueError("fortunes: the collection '" + name + "' is named twice");
    std::vector<std::string> e = read_collection((dir / name).string());
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
    for (const std::string& text : e) ++holders[text];
    entries.push_back(std::move(e));
  }
  for (auto& e : entries) std::erase_if(e, [&](const std::string& text) { return holders[text] > 1; });
  return entries;
}

struct Examples {
  std::vector<std::string> texts;
  std::vector<int64_t> labels;
};

Split shuffled_split(Examples& examples, std::mt19937_64& rng) {
  std::vector<std::size_t> order(examples.texts.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  detail::sample_front(order, order.size(), rng);
  std::vector<std::string> texts;
  std::vector<int64_t> labels;
  texts.reserve(order.size());
  labels.reserve(order.size());
  for (std::size_t i : order) {
    texts.push_back(std::move(examples.texts[i]));
    labels.push_back(examples.labels[i]);
  }
  const auto n = static_cast<int64_t>(texts.size());
  return Split{Tensor(texts, Shape{n}), Tensor(labels, Shape{n})};
}

}  // namespace

std::string default_path() { return "/usr/share/games/fortunes"; }

const std::vector<std::string>& default_collections() {
  static const std::vector<std::string> names = {"computers", "politics", "science", "songs-poems", "zippy"};
  return names;
}

std::vector<std::string> read_collection(const std::string& file) {
  const std::string bytes = read_bytes(file);
  std::vector<std::string> entries, lines;
  std::istringstream in(bytes);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "%") {
      std::string text = entry_text(lines);
      if (!text.empty()) entries.push_back(std::move(text));
    } else {
      lines.push_back(std::move(line));
    }
  }
  // The last entry needs no closing "%".
  std::string text = entry_text(lines);
  if (!text.empty()) entries.push_back(std::move(text));
  return entries;
}

std::vector<int64_t> collection_sizes(const Options& options) {
  std::vector<int64_t> sizes;
  for (const auto& e : distinct_entries(options)) sizes.push_back(static_cast<int64_t>(e.size()));
  return sizes;
}

TrainTest load_data(const Options& options) {
  if (options.max_per_collection < 0)
    throw ValueError("fortunes: max_per_collection must be 0 (all) or positive, got " +
                     std::to_string(options.max_per_collection));
  if (!(options.test_fraction > 0.0 && options.test_fraction < 1.0))
    throw ValueError("fortunes: test_fraction must be in (0, 1), got " +
                     kiln::detail::number_text(options.test_fraction));
  std::vector<std::vector<std::string>> entries = distinct_entries(options);
  std::mt19937_64 rng(options.seed);
  Examples train, test;
  for (std::size_t c = 0; c < entries.size(); ++c) {
    std::vector<std::string>& e = entries[c];
    std::size_t n = e.size();
    if (options.max_per_collection > 0) n = std::min(n, static_cast<std::size_t>(options.max_per_collection));
    detail::sample_front(e, n, rng);
    const auto n_test = static_cast<std::size_t>(std::llround(options.test_fraction * static_cast<double>(n)));
    if (n_test == 0 || n_test == n)
      throw ValueError("fortunes: the collection '" + options.collections[c] + "' has " + std::to_string(n) +
                       " usable entries, too few for test_fraction " +
                       kiln::detail::number_text(options.test_fraction));
    for (std::size_t i = 0; i < n; ++i) {
      Examples& split = i < n_test ? test : train;
      split.texts.push_back(std::move(e[i]));
      split.labels.push_back(static_cast<int64_t>(c));
    }
  }
  Split train_split = shuffled_split(train, rng);
  Split test_split = shuffled_split(test, rng);
  return TrainTest{std::move(train_split), std::move(test_split)};
}

}  // namespace kiln::datasets::fortunes
