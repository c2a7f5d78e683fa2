// int4 kernels as Keras's Dense and EinsumDense quantize and dequantize them, and the
// file entries of quantized layers.
#include "quantized_kernel.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"

namespace kiln::layers::detail {

std::optional<int> int4_groups(const quantizers::QuantizationConfig& config) {
  if (!config.block_size || *config.block_size == -1) return std::nullopt;
  return config.block_size;
}

Int4Kernel quantize_int4_kernel(const Tensor& kernel, const quantizers::QuantizationConfig& config) {
  if (const auto block = int4_groups(config)) {
    auto g = quantizers::abs_max_quantize_grouped_with_zero_point(kernel, *block);
    return {quantizers::pack_int4(g.values, -1), g.scale, g.zero};
  }
  const quantizers::AbsMaxQuantizer q = config.weight_quantizer.value_or(quantizers::AbsMaxQuantizer{.value_min = -8, .value_max = 7});
  auto [values, scale] = quantizers::abs_max_quantize(kernel, 0, q);
  return {quantizers::pack_int4(values, -1), squeeze(scale, {0}), Tensor()};
}

Tensor dequantize_int4_kernel(const Int4Kernel& k, int64_t columns, const Tensor& g_idx, DType dtype) {
  const Tensor unpacked = quantizers::unpack_int4(k.packed, columns, -1);
  if (k.zero.defined()) return cast(quantizers::dequantize_with_sz_map(unpacked, k.scale, k.zero, g_idx, 0), dtype);
  return cast(unpacked, dtype) / k.scale;
}

Tensor int4_group_index(int64_t rows, int block_size) {
  return floor_divide(range(0, static_cast<double>(rows), 1, DType::float32), Tensor(static_cast<double>(block_size), DType::float32));
}

std::vector<StoredVariable> quantized_entries(const QuantizedVariables& v, std::function<std::vector<Tensor>()> merge) {
  StoredVariable kernel{v.kernel, {}}, scale{v.scale, {}}, zero{v.zero, {}};
  if (merge) {
    auto saved = saved_together(std::move(merge), 3);
    kernel.saved = saved[0];
    scale.saved = saved[1];
    zero.saved = saved[2];
  }
  std::vector<StoredVariable> out{kernel};
  if (v.bias.defined()) out.push_back({v.bias, {}});
  out.push_back(scale);
  if (v.zero.defined()) out.push_back(zero);
  if (v.g_idx.defined()) out.push_back({v.g_idx, {}});
  return out;
}

}  // namespace kiln::layers::detail
