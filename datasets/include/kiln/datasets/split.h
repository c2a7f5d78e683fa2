#pragma once
// Split and TrainTest: what every dataset loader returns. The layout mirrors
// Keras's ((x_train, y_train), (x_test, y_test)) so that structured bindings
// read the same as the Python tuple unpacking:
//
//   auto [train, test] = kiln::datasets::mnist::load_data();
//   train.x;              // uint8 (8000, 28, 28)
//   train.y;              // int64 (8000,)
//   auto [x_test, y_test] = test;
#include "kiln/core/tensor.h"

namespace kiln::datasets {

/// One split of a dataset: inputs `x` and targets `y`, which share their
/// first dimension (the number of examples).
struct Split {
  Tensor x;  ///< The inputs, (num_examples, ...).
  Tensor y;  ///< The targets, (num_examples, ...).
};

/// The training and test splits of a dataset.
struct TrainTest {
  Split train;  ///< The training split (Keras's (x_train, y_train)).
  Split test;  ///< The test split (Keras's (x_test, y_test)).
};

}  // namespace kiln::datasets
