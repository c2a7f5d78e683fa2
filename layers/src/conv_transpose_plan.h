#pragma once
// Private: the per-axis plan of a transposed convolution as jax.lax.conv_transpose
// runs it (Keras 3's JAX backend): the input dilated by the stride, padded as
// Keras converts its padding, then a stride-1 convolution with the kernel flipped
// in space. Shared by Conv1D/2DTranspose and Conv3DTranspose.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/tensor.h"

namespace kiln::layers::detail {

struct TransposeAxisPlan {
  int64_t stride, kernel, dilation;
  int64_t left, right;  // padding of the dilated input (negative: cropping)
};

/// Keras's _convert_conv_transpose_padding_args_from_keras_to_jax for one axis.
TransposeAxisPlan plan_transpose_axis(int64_t kernel, int64_t stride, int64_t dilation, const std::string& padding,
                                      std::optional<int64_t> output_padding);
/// The output length along one axis (Keras's compute_conv_transpose_output_shape);
/// None (-1) stays None.
int64_t transpose_output_length(int64_t in, int64_t kernel, int64_t stride, int64_t dilation,
                                const std::string& padding, std::optional<int64_t> output_padding);
/// Inserts stride - 1 zeros between neighbours along `axis`: I -> (I - 1)·stride + 1.
Tensor dilate_axis(const Tensor& x, int axis, int64_t stride);
/// Zeros before and after along `axis`; a negative amount crops instead.
Tensor pad_axis(const Tensor& x, int axis, int64_t left, int64_t right);
/// The kernel reversed along `axis` (the flip of the transposed convolution).
Tensor reverse_axis(const Tensor& x, int axis);

}  // namespace kiln::layers::detail
