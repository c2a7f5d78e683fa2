#pragma once
// keras.utils' numerical helpers for labels and features.
//
//   auto y = kiln::utils::to_categorical(labels, 10);   // (N,) or (N, 1) ints -> (N, 10) float32
//   auto unit = kiln::utils::normalize(features);       // rows of L2 norm 1
#include <cstdint>
#include <optional>

#include "kiln/core/tensor.h"

namespace kiln::utils {

/// keras.utils.to_categorical: one-hot float32 rows for integer class labels; a trailing
/// axis of size 1 is dropped first. num_classes defaults to max(x) + 1.
Tensor to_categorical(const Tensor& x, std::optional<int64_t> num_classes = std::nullopt);
/// keras.utils.normalize on a tensor: keras.ops.normalize(x, axis, order).
Tensor normalize(const Tensor& x, int axis = -1, int order = 2);

}  // namespace kiln::utils
