// keras.utils.image_dataset_from_directory: Keras's argument checks, file index and
// split, then a Dataset that decodes and resizes each file when it is pulled.
#include <algorithm>
#include <cctype>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/utils/image_dataset.h"
#include "utils/image_codec.h"
#include "utils/directory_loading.h"
#include "utils/image_resize.h"

namespace kiln::utils {
namespace {

const std::vector<std::string> kAllowlistFormats{".bmp", ".gif", ".jpeg", ".jpg", ".png"};
const char* kAllowlistText = "('.bmp', '.gif', '.jpeg', '.jpg', '.png')";

namespace dd = directory_loading;

dd::Args shared_args(const ImageDatasetOptions& o, const std::string& subset) {
  return {.labels = o.labels, .label_mode = o.label_mode, .class_names = o.class_names, .shuffle = o.shuffle,
          .seed = o.seed, .validation_split = o.validation_split, .subset = subset, .follow_links = o.follow_links,
          .verbose = o.verbose};
}

// The checks image_dataset_from_directory and check_validation_split_arg make, in Keras's order.
void check_arguments(const ImageDatasetOptions& o, const std::string& subset) {
  const dd::Args shared = shared_args(o, subset);
  dd::check_label_arguments(shared, "image files", "images");
  if (o.color_mode != "rgb" && o.color_mode != "rgba" && o.color_mode != "grayscale")
    throw ValueError("`color_mode` must be one of {\"rgb\", \"rgba\", \"grayscale\"}. Received: color_mode=" + o.color_mode);
  if (o.image_size[0] <= 0 || o.image_size[1] <= 0)
    throw ValueError("Invalid `image_size` value. Expected a tuple of 2 positive integers. Received: image_size=(" +
                     std::to_string(o.image_size[0]) + ", " + std::to_string(o.image_size[1]) + ")");
  image_resize::check_interpolation(o.interpolation, "image_dataset_from_directory");
  if (o.batch_size && *o.batch_size < 1)
    throw ValueError("image_dataset_from_directory: batch_size must be at least 1; received " + std::to_string(*o.batch_size));
  if (o.data_format != "channels_last" && o.data_format != "channels_first")
    throw ValueError("The `data_format` argument must be one of {'channels_first', 'channels_last'}. Received: "
                     "data_format=" + o.data_format);
  dd::check_split_arguments(shared);
  if (o.pad_to_aspect_ratio && o.crop_to_aspect_ratio)
    throw ValueError("Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio` can be set to `True`.");
}

// _load_image_tf: decode, resize (crop or pad first when asked), channels_first.
Tensor load_image(const std::string& path, int64_t channels, const ImageDatasetOptions& o) {
  const auto pixels = image_codec::decode_image(image_codec::read_file(path), channels, path, image_codec::Rules::tf);
  const auto image = image_resize::to_float(pixels);
  const auto [h, w] = o.image_size;
  image_resize::FloatImage r = o.crop_to_aspect_ratio  ? image_resize::smart_resize(image, h, w, o.interpolation)
                               : o.pad_to_aspect_ratio ? image_resize::resize_with_pad(image, h, w, o.interpolation)
                                                       : image_resize::resize(image, h, w, o.interpolation);
  Tensor t(r.data, Shape({h, w, channels}));
  if (o.interpolation == "nearest") t = cast(t, DType::uint8);  // TF's nearest resize keeps uint8
  return o.data_format == "channels_first" ? transpose(t, {2, 0, 1}) : t;
}

ImageDirectoryDataset make_dataset(const directory_index::Index& index, const ImageDatasetOptions& o,
                                   std::optional<std::string> label_mode, bool shuffle, uint32_t seed) {
  const int64_t channels = o.color_mode == "grayscale" ? 1 : o.color_mode == "rgba" ? 4 : 3;
  return dd::files_dataset(index, label_mode, o.batch_size, shuffle, seed,
                           [channels, o](const std::string& path) { return load_image(path, channels, o); });
}

dd::Prepared prepare(const std::string& directory, const ImageDatasetOptions& o, const std::string& subset) {
  check_arguments(o, subset);
  return dd::prepare(directory, kAllowlistFormats, shared_args(o, subset));
}

// Keras lower-cases the interpolation name before checking it.
ImageDatasetOptions normalized(ImageDatasetOptions o) {
  std::transform(o.interpolation.begin(), o.interpolation.end(), o.interpolation.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return o;
}

}  // namespace

ImageDirectoryDataset image_dataset_from_directory(const std::string& directory, const ImageDatasetOptions& given) {
  const ImageDatasetOptions options = normalized(given);
  const std::string subset = options.subset.value_or("");
  if (subset == "both")
    throw ValueError("image_dataset_from_directory: subset=\"both\" returns two datasets; call "
                     "image_dataset_from_directory_both");
  const dd::Prepared p = prepare(directory, options, subset);
  const auto part = directory_index::training_or_validation_split(p.index, options.validation_split, subset);
  if (part.file_paths.empty())
    throw ValueError("No images found in directory " + directory + ". Allowed formats: " + kAllowlistText);
  return make_dataset(part, options, p.label_mode, options.shuffle, p.seed);
}

std::pair<ImageDirectoryDataset, ImageDirectoryDataset> image_dataset_from_directory_both(
    const std::string& directory, const ImageDatasetOptions& given) {
  const ImageDatasetOptions options = normalized(given);
  const std::string subset = options.subset.value_or("both");
  if (subset != "both")
    throw ValueError("image_dataset_from_directory_both: subset must be \"both\"; received subset=\"" + subset + "\"");
  const dd::Prepared p = prepare(directory, options, subset);
  const auto train = directory_index::training_or_validation_split(p.index, options.validation_split, "training");
  const auto val = directory_index::training_or_validation_split(p.index, options.validation_split, "validation");
  if (train.file_paths.empty())
    throw ValueError("No training images found in directory " + directory + ". Allowed formats: " + kAllowlistText);
  if (val.file_paths.empty())
    throw ValueError("No validation images found in directory " + directory + ". Allowed formats: " + kAllowlistText);
  return {make_dataset(train, options, p.label_mode, options.shuffle, p.seed),
          make_dataset(val, options, p.label_mode, false, p.seed)};
}

}  // namespace kiln::utils
