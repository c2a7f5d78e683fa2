#pragma once
// What Keras's quantized Dense, EinsumDense and Embedding share: the int4 form of
// a 2-D kernel (rows contracted with the inputs, one column per output), its values
// packed two per byte along the columns, with either one symmetric scale per column
// or, in groups of block_size rows, a scale and a zero point per group and column;
// and the order of a quantized layer's entries in Keras's files.
#include <functional>
#include <optional>
#include <vector>

#include "kiln/core/tensor.h"
#include "kiln/nn/quantizers.h"
#include "kiln/nn/stored_variables.h"

namespace kiln::layers::detail {

/// A quantized kernel's tensors.
struct Int4Kernel {
  Tensor packed;  ///< (rows, ceil(columns / 2)) int8.
  Tensor scale;  ///< (columns,) per channel; (n_groups, columns) grouped.
  Tensor zero;  ///< (n_groups, columns) int8 when grouped; undefined per channel.
};

/// The group size a config asks for: none for per-channel scales (block_size none or -1).
std::optional<int> int4_groups(const quantizers::QuantizationConfig& config);

/// Quantizes a (rows, columns) float kernel as Keras's int4 Dense does: per channel with
/// the config's weight quantizer (default AbsMaxQuantizer over rows, range [-8, 7]), or
/// grouped with zero points.
Int4Kernel quantize_int4_kernel(const Tensor& kernel, const quantizers::QuantizationConfig& config);

/// The (rows, columns) kernel in `dtype`: per channel int4 / scale, grouped
/// (int4 - zero[g_idx]) · scale[g_idx].
Tensor dequantize_int4_kernel(const Int4Kernel& k, int64_t columns, const Tensor& g_idx, DType dtype);

/// The g_idx Keras stores for grouped scales: floor(row / block_size), in float32.
Tensor int4_group_index(int64_t rows, int block_size);

/// A quantized layer's variables; those it lacks are undefined.
struct QuantizedVariables {
  Variable kernel, bias, scale, zero, g_idx;  ///< In Keras's file order.
};

/// Keras's file entries of a quantized layer: kernel, bias, scale, then int4's zero points and
/// g_idx. With LoRA, `merge` returns the kernel, scale and zero points requantized with the
/// adapters merged in (Keras's save_own_variables); it runs once when the file is written.
std::vector<StoredVariable> quantized_entries(const QuantizedVariables& v,
                                              std::function<std::vector<Tensor>()> merge = {});

}  // namespace kiln::layers::detail
