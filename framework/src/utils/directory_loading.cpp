// Keras's dataset_utils checks and index preparation shared by the *_dataset_from_directory
// loaders, with Keras's messages.
#include "utils/directory_loading.h"

#include <charconv>
#include <memory>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/random.h"

namespace kiln::utils::directory_loading {
namespace {

std::string labels_text(const Args& a) {
  if (std::holds_alternative<std::nullptr_t>(a.labels)) return "None";
  if (const auto* s = std::get_if<std::string>(&a.labels)) return *s;
  std::string t = "[";
  for (int64_t l : std::get<std::vector<int64_t>>(a.labels)) t += (t.size() > 1 ? ", " : "") + std::to_string(l);
  return t + "]";
}

// A float as Python's repr() writes it (shortest round trip, ".0" on whole numbers).
std::string python_float(double v) {
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  std::string s(buf, end);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

void check_label_arguments(const Args& a, const char* files, const char* samples) {
  if (const auto* s = std::get_if<std::string>(&a.labels); s && *s != "inferred")
    throw ValueError(std::string("`labels` argument should be a list/tuple of integer labels, of the same size as the "
                                 "number of ") + files + " in the target directory. If you wish to infer the labels from "
                     "the subdirectory names in the target directory, pass `labels=\"inferred\"`. If you wish to get a "
                     "dataset that only contains " + samples + " (no labels), pass `labels=None`. Received: labels=" + *s);
  if (std::holds_alternative<std::vector<int64_t>>(a.labels) && a.class_names && !a.class_names->empty())
    throw ValueError("You can only pass `class_names` if `labels=\"inferred\"`. Received: labels=" + labels_text(a) +
                     ", and class_names=" + directory_index::python_list(*a.class_names));
  if (a.label_mode && *a.label_mode != "int" && *a.label_mode != "categorical" && *a.label_mode != "binary")
    throw ValueError("`label_mode` argument must be one of \"int\", \"categorical\", \"binary\", or None. Received: "
                     "label_mode=" + *a.label_mode);
}

void check_split_arguments(const Args& a) {
  const double split = a.validation_split.value_or(0.0);
  if (split != 0.0 && !(split > 0.0 && split < 1.0))
    throw ValueError("`validation_split` must be between 0 and 1, received: " + python_float(split));
  if ((split != 0.0 || !a.subset.empty()) && !(split != 0.0 && !a.subset.empty()))
    throw ValueError("If `subset` is set, `validation_split` must be set, and inversely.");
  if (!a.subset.empty() && a.subset != "training" && a.subset != "validation" && a.subset != "both")
    throw ValueError("`subset` must be either \"training\", \"validation\" or \"both\", received: " + a.subset);
  if (split != 0.0 && a.shuffle && !a.seed)
    throw ValueError("If using `validation_split` and shuffling the data, you must provide a `seed` argument, to make "
                     "sure that there is no overlap between the training and validation subset.");
}

Prepared prepare(const std::string& directory, const std::vector<std::string>& formats, const Args& a) {
  std::optional<std::string> label_mode = a.label_mode;
  directory_index::IndexOptions io;
  if (std::holds_alternative<std::nullptr_t>(a.labels) || !label_mode) {
    io.labels = "none";
    label_mode.reset();
  } else if (const auto* list = std::get_if<std::vector<int64_t>>(&a.labels)) {
    io.labels = "list";
    io.label_list = *list;
  }
  const uint32_t seed = a.seed.value_or(static_cast<uint32_t>(random::next_seed() % 1000000));
  io.class_names = a.class_names;
  io.shuffle = a.shuffle;
  io.seed = seed;
  io.follow_links = a.follow_links;
  io.verbose = a.verbose;
  directory_index::Index index = directory_index::index_directory(directory, formats, io);
  if (label_mode == "binary" && index.class_names.size() != 2)
    throw ValueError("When passing `label_mode=\"binary\"`, there must be exactly 2 class_names. Received: class_names=" +
                     directory_index::python_list(index.class_names));
  return {std::move(index), label_mode, seed};
}

Tensor label_tensor(const std::vector<int64_t>& labels, const std::string& mode, int64_t num_classes) {
  std::vector<int32_t> ints(labels.begin(), labels.end());
  Tensor t(ints, Shape({static_cast<int64_t>(ints.size())}));
  if (mode == "binary") return reshape(cast(t, DType::float32), Shape({t.shape().dims()[0], 1}));
  if (mode == "categorical") return one_hot(t, num_classes, DType::float32);
  return t;
}

DirectoryDataset files_dataset(const directory_index::Index& index, const std::optional<std::string>& label_mode,
                               std::optional<int64_t> batch_size, bool shuffle, uint32_t seed,
                               std::function<Tensor(const std::string& path)> load) {
  auto paths = std::make_shared<std::vector<std::string>>(index.file_paths);
  const auto n = static_cast<int64_t>(paths->size());
  std::vector<int64_t> positions(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) positions[static_cast<std::size_t>(i)] = i;
  std::vector<Tensor> parts{Tensor(positions, Shape({n}))};
  if (label_mode) parts.push_back(label_tensor(index.labels, *label_mode, static_cast<int64_t>(index.class_names.size())));
  Dataset ds = Dataset::from_tensor_slices(parts);
  if (shuffle) ds = ds.shuffle(batch_size ? *batch_size * 8 : 1024, seed);
  ds = ds.map([paths, load = std::move(load)](const Element& e) {
    Element out{load((*paths)[static_cast<std::size_t>(e[0].item<int64_t>())])};
    if (e.size() > 1) out.push_back(e[1]);
    return out;
  });
  if (batch_size) ds = ds.batch(*batch_size);
  return {ds.prefetch(Dataset::AUTOTUNE), label_mode ? index.class_names : std::vector<std::string>{}, index.file_paths};
}

}  // namespace kiln::utils::directory_loading
