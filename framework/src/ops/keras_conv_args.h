#pragma once
// Private: the argument checks and layout moves that keras.ops' convolutions and
// pools share (kiln/ops/keras_nn_ops.h).
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln::ops::spatial {

/// Throws ValueError unless data_format is "channels_last" or "channels_first".
bool is_channels_first(const char* op, const std::string& data_format);
/// Throws ValueError unless padding is "valid" or "same".
void check_padding(const char* op, const std::string& padding);
/// Throws ShapeError unless x has 1 to 3 spatial axes; returns how many.
int spatial_rank(const char* op, const Tensor& x);
/// One positive value per spatial axis from one value or `rank` values, named `what`.
std::vector<int64_t> per_axis(const char* op, const char* what, const std::vector<int64_t>& v, int rank);
/// (b, C, *spatial) -> (b, *spatial, C), and back.
Tensor to_last(const Tensor& x);
Tensor to_first(const Tensor& x);
/// The output length of a window `kernel` (dilated) sliding by `stride` (TF/JAX rule).
int64_t window_output_length(int64_t in, int64_t kernel, const std::string& padding, int64_t stride,
                             int64_t dilation);
/// A float input converted to `dtype` (Keras converts conv inputs to the kernel's dtype).
Tensor as_dtype(const Tensor& x, DType dtype);
/// Every spatial axis of a channels-last x gives a positive output length, or ValueError.
void check_nonempty_output(const char* op, const Tensor& x, const Shape& window, const std::vector<int64_t>& strides,
                           const std::string& padding, const std::vector<int64_t>& dilation);

}  // namespace kiln::ops::spatial
