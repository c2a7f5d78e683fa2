#pragma once
/// @namespace kiln::datasets::wordlists
/// Word lists of seven languages for language identification of single words:
/// Debian's spelling dictionaries (packages wamerican, wngerman, wfrench,
/// wspanish, witalian, wportuguese and wdutch), read from /usr/share/dict.
///
/// @code{.unparsed}
///   auto [train, test] = kiln::datasets::wordlists::load_words();
///   // train.words: 112,000 lower-case UTF-8 words;  train.labels: 0..6
///   auto vocabulary = kiln::datasets::wordlists::char_vocabulary(train.words);
///   kiln::Tensor x = kiln::datasets::wordlists::encode(train.words, vocabulary, 20);  // int64 (N, 20)
/// @endcode
///
/// The split, fixed by the options' seed:
///   1. Each file is decoded as UTF-8, or as ISO-8859-1 when it is not valid UTF-8.
///   2. A word is kept when it starts with a lower-case letter (no proper nouns,
///      and no German nouns) and contains no apostrophe (' or ’); it is lower-cased.
///   3. A word found in more than one language's list is dropped from all of them.
///   4. words_per_language words are sampled from each language without replacement,
///      and each language's sample is split test_fraction / rest into test / train,
///      so both splits are balanced; each split is then shuffled.
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln::datasets::wordlists {

/// The languages, indexed by label: English, German, French, Spanish, Italian, Portuguese, Dutch.
const std::vector<std::string>& languages();

/// The file of each language under the dictionary directory, indexed by label
/// ("american-english", "ngerman", "french", "spanish", "italian", "portuguese", "dutch").
const std::vector<std::string>& file_names();

/// Where Debian installs the word lists: "/usr/share/dict".
std::string default_path();

/// Options of load_words().
struct Options {
  std::string path = "";  ///< The dictionary directory; "" means default_path().
  int64_t words_per_language = 20000;  ///< Words sampled from each language (test and train together).
  double test_fraction = 0.2;  ///< The share of each language's sample that goes to the test split.
  uint64_t seed = 2024;  ///< Seed of the sampling and shuffling; the same seed gives the same split.
};

/// Words (lower-case, UTF-8) and their language labels (int64 0..6), index for index.
struct Words {
  std::vector<std::string> words;  ///< The words, lower-case UTF-8.
  std::vector<int64_t> labels;  ///< The language of each word, an index into languages().
};

/// What load_words() returns: the training and test words.
struct TrainTestWords {
  Words train;  ///< The training words (1 - test_fraction of each language's sample).
  Words test;  ///< The test words (test_fraction of each language's sample).
};

/// Reads the seven lists and makes the split described above.
/// Throws kiln::IOError naming the file for a missing or unreadable list, and
/// kiln::ValueError when a language has fewer than words_per_language usable words.
TrainTestWords load_words(const Options& options = {});

/// The eligible words of one list file, lower-cased and sorted, duplicates
/// removed (steps 1 and 2 above). Throws kiln::IOError naming a missing file.
std::vector<std::string> read_word_list(const std::string& file);

/// The code points of a UTF-8 word (malformed bytes become U+FFFD).
std::u32string characters(const std::string& word);

/// The distinct characters of `words`, sorted: the vocabulary encode() maps to ids.
std::vector<char32_t> char_vocabulary(const std::vector<std::string>& words);

/// @name Reserved ids
//@{
/// The id of the padding (the Embedding's mask_zero index) and of a character not in the vocabulary;
/// vocabulary[i] gets id i + 2, so an Embedding needs input_dim = vocabulary.size() + 2.
inline constexpr int64_t kPaddingId = 0;
inline constexpr int64_t kUnknownId = 1;
//@}

/// The words as rows of character ids, int64 (N, max_length): the first
/// max_length characters of each word, then kPaddingId.
Tensor encode(const std::vector<std::string>& words, const std::vector<char32_t>& vocabulary, int64_t max_length);

}  // namespace kiln::datasets::wordlists
