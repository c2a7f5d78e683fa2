#pragma once
// Private: Keras's numerical_utils.encode_categorical_inputs (JAX backend), the
// encoding shared by CategoryEncoding, Discretization and IntegerLookup.
//   "one_hot":   a last axis of size 1 is dropped, then a new last axis of `depth`
//                holds 1 at the index (all zeros for an index outside [0, depth)).
//   "multi_hot": the one-hot vectors, max over axis 1 (axis 0 for a rank-1 input).
//   "count":     the one-hot vectors, summed over the same axis.
// A scalar input is first made a one-element vector. The output has `dtype`.
#include <cstdint>
#include <string>

#include "kiln/core/tensor.h"

namespace kiln::layers::detail {

Tensor encode_categorical(const Tensor& indices, const std::string& output_mode, int64_t depth, DType dtype);
/// The shape encode_categorical gives an input of shape `input` (None entries kept).
Shape encoded_shape(const Shape& input, const std::string& output_mode, int64_t depth);

}  // namespace kiln::layers::detail
