#pragma once
// keras.utils.text_dataset_from_directory: a Dataset of (texts, labels) read from a
// directory of class subdirectories of .txt files.
//
//   aclImdb/train/neg/0_3.txt, aclImdb/train/pos/0_9.txt, ...
//   auto train = kiln::utils::text_dataset_from_directory("aclImdb/train",
//       {.batch_size = 32, .seed = 1337, .validation_split = 0.2, .subset = "training"});
//   train.class_names;            // {"neg", "pos"}
//   for (auto [texts, labels] : train.dataset) ...   // (32,) string, (32,) int32
//
// Keras's rules, as image_dataset_from_directory has them (kiln/utils/image_dataset.h):
// class directories sorted by name (or class_names in its order), files with the
// extension .txt (any case) found in os.walk's order, permuted by NumPy's legacy
// RandomState(seed).shuffle, and split into the first n - int(validation_split * n)
// files for training and the rest for validation. Each element is a file's bytes as
// one string (tf.io.read_file: no decoding, so any encoding passes through), cut to
// its first max_length bytes when set (tf.strings.substr). Labels: "int" int32
// (batch,), "categorical" float32 (batch, num_classes), "binary" float32 (batch, 1);
// none for label_mode std::nullopt. Keras's format="grain" (a Grain dataset) has no
// counterpart: the result is always a kiln::Dataset. As for images, the order within
// a pass after the file permutation is Kiln's own shuffle, not tf.data's.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "kiln/utils/directory_dataset.h"

namespace kiln::utils {

/// keras.utils.text_dataset_from_directory's arguments, with its names and defaults.
struct TextDatasetOptions {
  /// "inferred" (from the subdirectory names), nullptr (no labels: Keras's None), or one
  /// integer label per text file, in the order of the sorted file paths.
  std::variant<std::string, std::nullptr_t, std::vector<int64_t>> labels = std::string("inferred");
  /// "int", "categorical", "binary", or std::nullopt (no labels).
  std::optional<std::string> label_mode = std::string("int");
  /// With labels "inferred": the subdirectories to use, in this order (default: all, sorted).
  std::optional<std::vector<std::string>> class_names = std::nullopt;
  /// Texts per batch; std::nullopt yields single texts (scalar string tensors).
  std::optional<int64_t> batch_size = 32;
  /// Keep at most this many bytes of each text; std::nullopt keeps all.
  std::optional<int64_t> max_length = std::nullopt;
  /// Shuffle the files (with the seed); false keeps the sorted order.
  bool shuffle = true;
  /// Seed of the shuffles; drawn at random (0..999999, from kiln::random) when absent.
  std::optional<uint32_t> seed = std::nullopt;
  /// Fraction of the files (0 < f < 1) kept for validation.
  std::optional<double> validation_split = std::nullopt;
  /// "training" or "validation" (or "both", through text_dataset_from_directory_both).
  std::optional<std::string> subset = std::nullopt;
  /// Walk into subdirectories that are symbolic links.
  bool follow_links = false;
  /// Print "Found N files belonging to M classes." and the split counts.
  bool verbose = true;
};

/// keras.utils.text_dataset_from_directory for one subset (or all files). Throws Keras's
/// ValueErrors for bad arguments (and for subset "both": use text_dataset_from_directory_both),
/// IOError for a missing directory, and IOError naming the file when one cannot be read.
DirectoryDataset text_dataset_from_directory(const std::string& directory, const TextDatasetOptions& options = {});

/// keras.utils.text_dataset_from_directory(..., subset="both"): the training and validation
/// datasets (options.subset must be "both" or unset; validation_split is required).
std::pair<DirectoryDataset, DirectoryDataset> text_dataset_from_directory_both(const std::string& directory,
                                                                               const TextDatasetOptions& options);

}  // namespace kiln::utils
