// keras.utils.text_dataset_from_directory: Keras's argument checks, file index and
// split (shared with image_dataset_from_directory), then a Dataset that reads each
// file when it is pulled.
#include "kiln/utils/text_dataset.h"

#include <fstream>
#include <iterator>

#include "kiln/core/error.h"
#include "utils/directory_loading.h"

namespace kiln::utils {
namespace {

namespace dl = directory_loading;

dl::Args text_args(const TextDatasetOptions& o, const std::string& subset) {
  return {.labels = o.labels, .label_mode = o.label_mode, .class_names = o.class_names, .shuffle = o.shuffle,
          .seed = o.seed, .validation_split = o.validation_split, .subset = subset, .follow_links = o.follow_links,
          .verbose = o.verbose};
}

dl::Prepared prepare_texts(const std::string& directory, const TextDatasetOptions& o, const std::string& subset) {
  const dl::Args a = text_args(o, subset);
  dl::check_label_arguments(a, "text files", "text samples");
  if (o.batch_size && *o.batch_size < 1)
    throw ValueError("text_dataset_from_directory: batch_size must be at least 1; received " + std::to_string(*o.batch_size));
  if (o.max_length && *o.max_length < 0)
    throw ValueError("text_dataset_from_directory: max_length must be at least 0; received " + std::to_string(*o.max_length));
  dl::check_split_arguments(a);
  return dl::prepare(directory, {".txt"}, a);
}

// tf.io.read_file, then tf.strings.substr(text, 0, max_length): bytes, not characters.
Tensor read_text(const std::string& path, std::optional<int64_t> max_length) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError("text_dataset_from_directory: cannot open " + path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw IOError("text_dataset_from_directory: cannot read " + path);
  if (max_length && static_cast<int64_t>(text.size()) > *max_length) text.resize(static_cast<std::size_t>(*max_length));
  return Tensor(std::vector<std::string>{std::move(text)}, Shape{});
}

DirectoryDataset text_files_dataset(const directory_index::Index& index, const TextDatasetOptions& o,
                              const std::optional<std::string>& label_mode, bool shuffle, uint32_t seed) {
  const std::optional<int64_t> max_length = o.max_length;
  return dl::files_dataset(index, label_mode, o.batch_size, shuffle, seed,
                           [max_length](const std::string& path) { return read_text(path, max_length); });
}

}  // namespace

DirectoryDataset text_dataset_from_directory(const std::string& directory, const TextDatasetOptions& options) {
  const std::string subset = options.subset.value_or("");
  if (subset == "both")
    throw ValueError("text_dataset_from_directory: subset=\"both\" returns two datasets; call "
                     "text_dataset_from_directory_both");
  const dl::Prepared p = prepare_texts(directory, options, subset);
  const auto part = directory_index::training_or_validation_split(p.index, options.validation_split, subset);
  if (part.file_paths.empty())
    throw ValueError("No text files found in directory " + directory + ". Allowed format: .txt");
  return text_files_dataset(part, options, p.label_mode, options.shuffle, p.seed);
}

std::pair<DirectoryDataset, DirectoryDataset> text_dataset_from_directory_both(const std::string& directory,
                                                                               const TextDatasetOptions& options) {
  const std::string subset = options.subset.value_or("both");
  if (subset != "both")
    throw ValueError("text_dataset_from_directory_both: subset must be \"both\"; received subset=\"" + subset + "\"");
  const dl::Prepared p = prepare_texts(directory, options, subset);
  const auto train = directory_index::training_or_validation_split(p.index, options.validation_split, "training");
  const auto val = directory_index::training_or_validation_split(p.index, options.validation_split, "validation");
  if (train.file_paths.empty())
    throw ValueError("No training text files found in directory " + directory + ". Allowed format: .txt");
  if (val.file_paths.empty())
    throw ValueError("No validation text files found in directory " + directory + ". Allowed format: .txt");
  return {text_files_dataset(train, options, p.label_mode, options.shuffle, p.seed),
          text_files_dataset(val, options, p.label_mode, false, p.seed)};
}

}  // namespace kiln::utils
