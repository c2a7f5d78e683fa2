#pragma once
// Segment reductions, named as in keras.ops: segment_sum, segment_max,
// segment_min and segment_prod. Row i of data (along axis 0) goes to segment
// segment_ids[i]; ids outside [0, num_segments) are dropped, as on JAX.
//   kiln::segment_sum(data, ids, 3)   // (3,) + data.shape[1:]
#include <optional>

#include "kiln/core/tensor.h"

namespace kiln {

/// keras.ops.segment_sum(data, segment_ids, num_segments=None, sorted=False): the sum
/// of data's rows per segment (0 for an empty one). segment_ids is a 1-D integer
/// tensor of data.shape[0] entries; without num_segments, max(segment_ids) + 1.
/// `sorted` promises sorted ids, as in Keras; the result does not depend on it.
Tensor segment_sum(const Tensor& data, const Tensor& segment_ids, std::optional<int64_t> num_segments = std::nullopt,
                   bool sorted = false);
/// keras.ops.segment_max: the maximum per segment (the dtype's lowest value, -inf for
/// floats, for an empty one); the gradient is shared between tied maxima.
Tensor segment_max(const Tensor& data, const Tensor& segment_ids, std::optional<int64_t> num_segments = std::nullopt,
                   bool sorted = false);
/// keras.ops.segment_min: the minimum per segment (the dtype's highest value, inf for
/// floats, for an empty one).
Tensor segment_min(const Tensor& data, const Tensor& segment_ids, std::optional<int64_t> num_segments = std::nullopt,
                   bool sorted = false);
/// keras.ops.segment_prod: the product per segment (1 for an empty one).
Tensor segment_prod(const Tensor& data, const Tensor& segment_ids, std::optional<int64_t> num_segments = std::nullopt,
                    bool sorted = false);

}  // namespace kiln
