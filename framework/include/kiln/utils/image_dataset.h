#pragma once
// keras.utils.image_dataset_from_directory: a Dataset of (images, labels) read
// from a directory of class subdirectories.
//
//   main_directory/cats/001.jpg, main_directory/cats/002.png, main_directory/dogs/a.bmp ...
//   auto train = kiln::utils::image_dataset_from_directory("main_directory",
//       {.image_size = {180, 180}, .seed = 123, .validation_split = 0.2, .subset = "training"});
//   train.class_names;            // {"cats", "dogs"}
//   model.fit(train.dataset, {.epochs = 3});
//
// Keras's rules, step by step: class directories are the directory's
// subdirectories (not starting with "."), sorted by name, or class_names in
// its order. Each is walked recursively (directories sorted by path, files by
// name) for the allowed extensions (.bmp .gif .jpeg .jpg .png, any case). With
// shuffle, the file list (and the labels) is permuted by NumPy's legacy
// np.random.RandomState(seed).shuffle; then, with validation_split, the first
// n - int(validation_split * n) files are for training and the last ones for
// validation. Each element is decoded as tf.io.decode_image does (GIF: first
// frame) and resized by tf.image.resize (half-pixel centers, no antialiasing).
//
// Element dtypes: images float32 (batch, height, width, channels); with
// interpolation "nearest" they stay uint8, as TF's nearest resize returns its
// input's dtype. Labels: "int" int32 (batch,), "categorical" float32
// (batch, num_classes) one-hot, "binary" float32 (batch, 1); no labels component
// for label_mode std::nullopt.
//
// One difference from Keras: after the file-list permutation (which matches
// Keras's file_paths exactly) Keras also runs tf.data's shuffle with a buffer of
// batch_size * 8 elements; Kiln's Dataset::shuffle draws its own order
// (std::mt19937_64), so the order of elements within a pass differs from TF's.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "kiln/utils/directory_dataset.h"

namespace kiln::utils {

/// keras.utils.image_dataset_from_directory's arguments, with its names and defaults.
struct ImageDatasetOptions {
  /// "inferred" (from the subdirectory names), nullptr (no labels: Keras's None), or one
  /// integer label per image file, in the order of the sorted file paths.
  std::variant<std::string, std::nullptr_t, std::vector<int64_t>> labels = std::string("inferred");
  /// "int", "categorical", "binary", or std::nullopt (no labels).
  std::optional<std::string> label_mode = std::string("int");
  /// With labels "inferred": the subdirectories to use, in this order (default: all, sorted).
  std::optional<std::vector<std::string>> class_names = std::nullopt;
  /// "grayscale", "rgb" or "rgba": 1, 3 or 4 channels.
  std::string color_mode = "rgb";
  /// Images per batch; std::nullopt yields single images.
  std::optional<int64_t> batch_size = 32;
  /// (height, width) every image is resized to.
  std::array<int64_t, 2> image_size = {256, 256};
  /// Shuffle the files (with the seed); false keeps the sorted order.
  bool shuffle = true;
  /// Seed of the shuffles; drawn at random (0..999999, from kiln::random) when absent.
  std::optional<uint32_t> seed = std::nullopt;
  /// Fraction of the files (0 < f < 1) kept for validation.
  std::optional<double> validation_split = std::nullopt;
  /// "training" or "validation" (or "both", through image_dataset_from_directory_both).
  std::optional<std::string> subset = std::nullopt;
  /// "bilinear", "nearest" or "bicubic" (Keras's other tf.image.resize methods, "area",
  /// "lanczos3", "lanczos5", "gaussian" and "mitchellcubic", throw ValueError).
  std::string interpolation = "bilinear";
  /// Walk into subdirectories that are symbolic links.
  bool follow_links = false;
  /// Resize the largest centered crop with the target aspect ratio (keras's smart_resize).
  bool crop_to_aspect_ratio = false;
  /// Resize to fit and pad with zeros to the target aspect ratio (tf.image.resize_with_pad).
  bool pad_to_aspect_ratio = false;
  /// "channels_last" (batch, height, width, channels) or "channels_first".
  std::string data_format = "channels_last";
  /// Print "Found N files belonging to M classes." and the split counts.
  bool verbose = true;
};

/// image_dataset_from_directory's result (see kiln/utils/directory_dataset.h).
using ImageDirectoryDataset = DirectoryDataset;

/// keras.utils.image_dataset_from_directory for one subset (or all files). Throws
/// Keras's ValueErrors for bad arguments (and for subset "both": use
/// image_dataset_from_directory_both), and IOError for a missing directory.
ImageDirectoryDataset image_dataset_from_directory(const std::string& directory,
                                                   const ImageDatasetOptions& options = {});

/// keras.utils.image_dataset_from_directory(..., subset="both"): the training and
/// validation datasets (options.subset must be "both" or unset; validation_split is required).
std::pair<ImageDirectoryDataset, ImageDirectoryDataset> image_dataset_from_directory_both(
    const std::string& directory, const ImageDatasetOptions& options);

}  // namespace kiln::utils
