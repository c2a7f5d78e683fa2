#pragma once
// Private: keras's dataset_utils.index_directory (the file list, labels and class
// names behind image_dataset_from_directory and text_dataset_from_directory) and
// get_training_or_validation_split.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::utils::directory_index {

/// index_directory's result.
struct Index {
  std::vector<std::string> file_paths;
  std::vector<int64_t> labels;            // empty without labels
  std::vector<std::string> class_names;   // empty without labels
  bool has_labels = false;
};

/// index_directory's arguments. `labels` is "inferred", "none" or "list" (then `label_list`).
struct IndexOptions {
  std::string labels = "inferred";
  std::vector<int64_t> label_list;
  std::optional<std::vector<std::string>> class_names;
  bool shuffle = true;
  uint32_t seed = 0;
  bool follow_links = false;
  bool verbose = true;
};

/// Names as Python prints a list of strings: ['a', 'b'] (Keras's messages show them so).
std::string python_list(const std::vector<std::string>& names);

/// The files under `directory` with one of `formats` (lower-case extensions with
/// their dot), their labels and the class names, shuffled as Keras does.
Index index_directory(const std::string& directory, const std::vector<std::string>& formats, const IndexOptions& o);

/// The training (first n - int(split * n)) or validation (last int(split * n)) part
/// of `index`, with Keras's message; no split keeps all.
Index training_or_validation_split(const Index& index, std::optional<double> validation_split, const std::string& subset);

}  // namespace kiln::utils::directory_index
