// keras.utils.image_dataset_from_directory: Keras's argument checks, file index and
// split, then a Dataset that decodes and resizes each file when it is pulled.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/random.h"
#include "kiln/utils/image_dataset.h"
#include "utils/image_codec.h"
#include "utils/image_index.h"
#include "utils/image_resize.h"

namespace kiln::utils {
namespace {

const std::vector<std::string> kAllowlistFormats{".bmp", ".gif", ".jpeg", ".jpg", ".png"};
const char* kAllowlistText = "('.bmp', '.gif', '.jpeg', '.jpg', '.png')";

// A float as Python's repr() writes it: shortest round trip, ".0" on whole numbers.
std::string python_float(double v) {
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  std::string s(buf, end);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string labels_text(const ImageDatasetOptions& o) {
  if (std::holds_alternative<std::nullptr_t>(o.labels)) return "None";
  if (const auto* s = std::get_if<std::string>(&o.labels)) return *s;
  std::string t = "[";
  for (int64_t l : std::get<std::vector<int64_t>>(o.labels)) t += (t.size() > 1 ? ", " : "") + std::to_string(l);
  return t + "]";
}

// The checks image_dataset_from_directory and check_validation_split_arg make, in Keras's order.
void check_arguments(const ImageDatasetOptions& o, const std::string& subset) {
  if (const auto* s = std::get_if<std::string>(&o.labels); s && *s != "inferred")
    throw ValueError("`labels` argument should be a list/tuple of integer labels, of the same size as the number of "
                     "image files in the target directory. If you wish to infer the labels from the subdirectory names "
                     "in the target directory, pass `labels=\"inferred\"`. If you wish to get a dataset that only "
                     "contains images (no labels), pass `labels=None`. Received: labels=" + *s);
  if (std::holds_alternative<std::vector<int64_t>>(o.labels) && o.class_names && !o.class_names->empty()) {
    std::string names;
    for (const auto& c : *o.class_names) names += (names.empty() ? "'" : ", '") + c + "'";
    throw ValueError("You can only pass `class_names` if `labels=\"inferred\"`. Received: labels=" + labels_text(o) +
                     ", and class_names=[" + names + "]");
  }
  if (o.label_mode && *o.label_mode != "int" && *o.label_mode != "categorical" && *o.label_mode != "binary")
    throw ValueError("`label_mode` argument must be one of \"int\", \"categorical\", \"binary\", or None. Received: "
                     "label_mode=" + *o.label_mode);
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
  const double split = o.validation_split.value_or(0.0);
  if (split != 0.0 && !(split > 0.0 && split < 1.0))
    throw ValueError("`validation_split` must be between 0 and 1, received: " + python_float(split));
  if ((split != 0.0 || !subset.empty()) && !(split != 0.0 && !subset.empty()))
    throw ValueError("If `subset` is set, `validation_split` must be set, and inversely.");
  if (!subset.empty() && subset != "training" && subset != "validation" && subset != "both")
    throw ValueError("`subset` must be either \"training\", \"validation\" or \"both\", received: " + subset);
  if (split != 0.0 && o.shuffle && !o.seed)
    throw ValueError("If using `validation_split` and shuffling the data, you must provide a `seed` argument, to make "
                     "sure that there is no overlap between the training and validation subset.");
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

Tensor label_tensor(const std::vector<int64_t>& labels, const std::string& mode, int64_t num_classes) {
  std::vector<int32_t> ints(labels.begin(), labels.end());
  Tensor t(ints, Shape({static_cast<int64_t>(ints.size())}));
  if (mode == "binary") return reshape(cast(t, DType::float32), Shape({t.shape().dims()[0], 1}));
  if (mode == "categorical") return one_hot(t, num_classes, DType::float32);
  return t;
}

ImageDirectoryDataset make_dataset(const image_index::Index& index, const ImageDatasetOptions& o,
                                   std::optional<std::string> label_mode, bool shuffle, uint32_t seed) {
  const int64_t channels = o.color_mode == "grayscale" ? 1 : o.color_mode == "rgba" ? 4 : 3;
  auto paths = std::make_shared<std::vector<std::string>>(index.file_paths);
  const auto n = static_cast<int64_t>(paths->size());
  std::vector<int64_t> positions(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) positions[static_cast<std::size_t>(i)] = i;
  std::vector<Tensor> parts{Tensor(positions, Shape({n}))};
  if (label_mode)
    parts.push_back(label_tensor(index.labels, *label_mode, static_cast<int64_t>(index.class_names.size())));
  Dataset ds = Dataset::from_tensor_slices(parts);
  if (shuffle) ds = ds.shuffle(o.batch_size ? *o.batch_size * 8 : 1024, seed);
  ds = ds.map([paths, channels, o](const Element& e) {
    Element out{load_image((*paths)[static_cast<std::size_t>(e[0].to_vector<int64_t>()[0])], channels, o)};
    if (e.size() > 1) out.push_back(e[1]);
    return out;
  });
  if (o.batch_size) ds = ds.batch(*o.batch_size);
  return {ds.prefetch(Dataset::AUTOTUNE), label_mode ? index.class_names : std::vector<std::string>{}, index.file_paths};
}

struct Prepared {
  image_index::Index index;
  std::optional<std::string> label_mode;
  uint32_t seed;
};

Prepared prepare(const std::string& directory, const ImageDatasetOptions& o, const std::string& subset) {
  check_arguments(o, subset);
  std::optional<std::string> label_mode = o.label_mode;
  image_index::IndexOptions io;
  if (std::holds_alternative<std::nullptr_t>(o.labels) || !label_mode) {
    io.labels = "none";
    label_mode.reset();
  } else if (const auto* list = std::get_if<std::vector<int64_t>>(&o.labels)) {
    io.labels = "list";
    io.label_list = *list;
  }
  const uint32_t seed = o.seed.value_or(static_cast<uint32_t>(random::next_seed() % 1000000));
  io.class_names = o.class_names;
  io.shuffle = o.shuffle;
  io.seed = seed;
  io.follow_links = o.follow_links;
  io.verbose = o.verbose;
  image_index::Index index = image_index::index_directory(directory, kAllowlistFormats, io);
  if (label_mode == "binary" && index.class_names.size() != 2) {
    std::string names;
    for (const auto& c : index.class_names) names += (names.empty() ? "'" : ", '") + c + "'";
    throw ValueError("When passing `label_mode=\"binary\"`, there must be exactly 2 class_names. Received: "
                     "class_names=[" + names + "]");
  }
  return {std::move(index), label_mode, seed};
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
  const Prepared p = prepare(directory, options, subset);
  const auto part = image_index::training_or_validation_split(p.index, options.validation_split, subset);
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
  const Prepared p = prepare(directory, options, subset);
  const auto train = image_index::training_or_validation_split(p.index, options.validation_split, "training");
  const auto val = image_index::training_or_validation_split(p.index, options.validation_split, "validation");
  if (train.file_paths.empty())
    throw ValueError("No training images found in directory " + directory + ". Allowed formats: " + kAllowlistText);
  if (val.file_paths.empty())
    throw ValueError("No validation images found in directory " + directory + ". Allowed formats: " + kAllowlistText);
  return {make_dataset(train, options, p.label_mode, options.shuffle, p.seed),
          make_dataset(val, options, p.label_mode, false, p.seed)};
}

}  // namespace kiln::utils
