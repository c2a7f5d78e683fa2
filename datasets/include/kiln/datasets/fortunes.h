#pragma once
/// @namespace kiln::datasets::fortunes
/// Quotations labelled by the collection they belong to, for text classification:
/// the collections of the `fortune` program that Debian's packages `fortunes`
/// (computers, politics, science, songs-poems, zippy, ...) and `fortunes-min`
/// (fortunes, literature, riddles) install in /usr/share/games/fortunes.
///
/// @code{.unparsed}
///   auto [train, test] = kiln::datasets::fortunes::load_data();
///   // train.x: string (N,), one quotation per element, UTF-8;  train.y: int64 (N,), 0..4
///   // the labels index default_collections(): computers, politics, science, songs-poems, zippy
/// @endcode
///
/// A collection file holds its entries one after another, each ended by a line
/// that holds only "%". The split, fixed by the options' seed:
///   1. Each entry is decoded as UTF-8, bytes that are not valid UTF-8 replaced by
///      U+FFFD; blank lines around it are dropped, line breaks inside it kept
///      (as "\n", also where the file ends its lines with "\r\n").
///   2. Empty entries, repeats within a collection, and entries found in more than
///      one of the chosen collections are dropped (a quotation has one label).
///   3. With max_per_collection, that many entries are sampled from each larger
///      collection; each collection is split test_fraction / rest into test / train
///      (stratified: the class shares are the same in both splits); each split is
///      then shuffled.
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/datasets/split.h"

namespace kiln::datasets::fortunes {

/// Where Debian installs the collections: "/usr/share/games/fortunes".
std::string default_path();

/// Five collections of distinct topics with 500 to 1,050 entries each, the
/// labels 0..4 in this order: "computers", "politics", "science", "songs-poems", "zippy".
const std::vector<std::string>& default_collections();

/// Options of load_data().
struct Options {
  std::string path = "";  ///< The directory of the collection files; "" means default_path().
  std::vector<std::string> collections = default_collections();  ///< File names; label i is collections[i].
  int64_t max_per_collection = 0;  ///< Entries sampled from each collection at most; 0 keeps them all.
  double test_fraction = 0.2;  ///< The share of each collection that goes to the test split.
  uint64_t seed = 2024;  ///< Seed of the sampling and shuffling; the same seed gives the same split.
};

/// Reads the chosen collections and makes the split described above: x a string
/// tensor (N,) of quotations, y int64 (N,) indices into options.collections.
/// Throws kiln::IOError naming the file when a collection is missing or unreadable,
/// and kiln::ValueError for fewer than two collections, a collection named twice,
/// or a collection left without test or training entries.
TrainTest load_data(const Options& options = {});

/// The entries of one collection file, in file order, after steps 1 and the empty
/// entries of step 2 above. Throws kiln::IOError naming a missing file.
std::vector<std::string> read_collection(const std::string& file);

/// The number of entries of each chosen collection after step 2 (before
/// max_per_collection), index for index with options.collections.
std::vector<int64_t> collection_sizes(const Options& options = {});

}  // namespace kiln::datasets::fortunes
