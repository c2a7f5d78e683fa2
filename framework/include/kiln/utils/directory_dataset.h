#pragma once
// The result of keras.utils' *_dataset_from_directory loaders (image_dataset.h,
// text_dataset.h): the Dataset with the attributes Keras sets on it.
#include <string>
#include <vector>

#include "kiln/data/dataset.h"

namespace kiln::utils {

/// A dataset read from a directory of class subdirectories, with its class names.
struct DirectoryDataset {
  /// The (samples, labels) or (samples) elements, batched as batch_size says.
  Dataset dataset;
  /// The class names (label i is class_names[i]); empty without labels.
  std::vector<std::string> class_names;
  /// The files of this dataset, in the order of its (pre-shuffle-buffer) elements.
  std::vector<std::string> file_paths;
  /// The dataset, for model.fit(...) and range-for.
  operator const Dataset&() const { return dataset; }
};

}  // namespace kiln::utils
