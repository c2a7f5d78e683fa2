#pragma once
// Private: what image_dataset_from_directory and text_dataset_from_directory share in
// Keras: the label and split argument checks, the index of the directory with the seed
// it was shuffled with, the label tensors, and the Dataset that loads each file.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <functional>

#include "kiln/core/tensor.h"
#include "kiln/utils/directory_dataset.h"
#include "utils/directory_index.h"

namespace kiln::utils::directory_loading {

/// The arguments both functions take, under Keras's names.
struct Args {
  std::variant<std::string, std::nullptr_t, std::vector<int64_t>> labels;
  std::optional<std::string> label_mode;
  std::optional<std::vector<std::string>> class_names;
  bool shuffle = true;
  std::optional<uint32_t> seed;
  std::optional<double> validation_split;
  std::string subset;  ///< "" when unset
  bool follow_links = false;
  bool verbose = true;
};

/// Keras's checks of labels, class_names and label_mode; `files` and `samples` name
/// what the directory holds in its messages ("image files" and "images").
void check_label_arguments(const Args& a, const char* files, const char* samples);

/// dataset_utils.check_validation_split_arg.
void check_split_arguments(const Args& a);

/// The directory's index (files with one of `formats`, shuffled), the label mode left
/// once labels=None is applied, and the seed used.
struct Prepared {
  directory_index::Index index;
  std::optional<std::string> label_mode;
  uint32_t seed = 0;
};
Prepared prepare(const std::string& directory, const std::vector<std::string>& formats, const Args& a);

/// dataset_utils.labels_to_dataset: "int" int32 (n,), "categorical" float32 one-hot,
/// "binary" float32 (n, 1).
Tensor label_tensor(const std::vector<int64_t>& labels, const std::string& mode, int64_t num_classes);

/// The dataset of an index's files, each loaded by `load` when pulled (with its label
/// unless label_mode is none), the file order shuffled with a buffer of batch_size * 8
/// when asked, then batched.
DirectoryDataset files_dataset(const directory_index::Index& index, const std::optional<std::string>& label_mode,
                               std::optional<int64_t> batch_size, bool shuffle, uint32_t seed,
                               std::function<Tensor(const std::string& path)> load);

}  // namespace kiln::utils::directory_loading
