// Embedding quantized to int8 or int4 (Keras's Embedding.quantize, _int8_call and _int4_call).
#include <functional>
#include <optional>
#include <utility>

#include "kiln/core/error.h"
#include "kiln/layers/embedding.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/shape_ops.h"
#include "quantized_kernel.h"

namespace kiln::layers {

using detail::Int4Kernel;

namespace {

/// int8: one scale per row (Keras reduces over output_dim, usually the shorter axis).
std::pair<Tensor, Tensor> quantize_table_int8(const Tensor& table, const quantizers::QuantizationConfig& config) {
  auto [q, scale] = quantizers::abs_max_quantize(table, -1, config.weight_quantizer.value_or(quantizers::AbsMaxQuantizer{}));
  return {q, squeeze(scale, {-1})};
}

/// int4, packed along the rows' values: one scale per row, or per row a scale and a zero
/// point for each group of block_size values.
Int4Kernel quantize_table_int4(const Tensor& table, const quantizers::QuantizationConfig& config) {
  if (const auto block = detail::int4_groups(config)) {
    // Keras groups along output_dim by quantizing the transposed table.
    auto g = quantizers::abs_max_quantize_grouped_with_zero_point(transpose(table), *block);
    return {quantizers::pack_int4(transpose(g.values), -1), transpose(g.scale), transpose(g.zero)};
  }
  const auto q = config.weight_quantizer.value_or(quantizers::AbsMaxQuantizer{.value_min = -8, .value_max = 7});
  auto [values, scale] = quantizers::abs_max_quantize(table, -1, q);
  return {quantizers::pack_int4(values, -1), squeeze(scale, {-1}), Tensor()};
}

/// Rows of an int4 table in `dtype`: `packed`, `scale` and `zero` hold the rows' own entries.
Tensor dequantize_rows_int4(const Int4Kernel& rows, int64_t output_dim, const Tensor& g_idx, DType dtype) {
  const Tensor values = cast(quantizers::unpack_int4(rows.packed, output_dim, -1), dtype);
  if (rows.zero.defined()) return quantizers::dequantize_with_sz_map(values, rows.scale, rows.zero, g_idx, -1);
  return values / expand_dims(rows.scale, -1);
}

}  // namespace

void EmbeddingImpl::quantize(const std::string& mode, const std::optional<quantizers::QuantizationConfig>& config) {
  if (!supports_quantization())
    throw TypeError("Layer '" + name() + "' (" + class_name() + "): Layer " + class_name() +
                    " does not have a `quantize()` method implemented.");
  const quantizers::QuantizeArgs args = quantizers::check_quantize_args(*this, mode, config);
  quantize_table(args.config);
  set_dtype_policy(args.policy);
}

void EmbeddingImpl::quantize_table(const quantizers::QuantizationConfig& config) {
  const Tensor table = embeddings_.read_value_untracked();
  o_.quantization_config = config;
  remove_weight(embeddings_);
  if (config.mode == "int4") {
    const Int4Kernel k = quantize_table_int4(table, config);
    build_quantized();
    embeddings_.assign(k.packed);
    embeddings_scale_.assign(k.scale.cast(embeddings_scale_.dtype()));
    if (embeddings_zero_.defined()) embeddings_zero_.assign(k.zero);
  } else {
    auto [q, scale] = quantize_table_int8(table, config);
    build_quantized();
    embeddings_.assign(q);
    embeddings_scale_.assign(scale.cast(embeddings_scale_.dtype()));
  }
}

void EmbeddingImpl::build_quantized() {
  const quantizers::QuantizationConfig& c = *o_.quantization_config;
  const std::optional<int> block = c.mode == "int4" ? detail::int4_groups(c) : std::nullopt;
  const int64_t columns = c.mode == "int4" ? (output_dim_ + 1) / 2 : output_dim_;
  embeddings_ = add_weight("embeddings", {input_dim_, columns}, {.initializer = "zeros", .trainable = false, .dtype = DType::int8});
  const Shape scale_shape = block ? Shape{input_dim_, (output_dim_ + *block - 1) / *block} : Shape{input_dim_};
  embeddings_scale_ = add_weight("embeddings_scale", scale_shape, {.initializer = "ones", .trainable = false});
  if (!block) return;
  embeddings_zero_ =
      add_weight("embeddings_zero", scale_shape, {.initializer = "zeros", .trainable = false, .dtype = DType::int8});
  g_idx_ = add_weight("g_idx", {output_dim_}, {.initializer = "zeros", .trainable = false, .dtype = DType::float32});
  g_idx_.assign(detail::int4_group_index(output_dim_, *block));
}

Tensor EmbeddingImpl::quantized_lookup(const Tensor& idx) const {
  Tensor out;
  if (dtype_policy().quantization_mode() == "int4") {
    // Only the looked-up rows are unpacked.
    const Int4Kernel rows{gather(embeddings_.value(), idx, 0), gather(embeddings_scale_.value(), idx, 0),
                          embeddings_zero_.defined() ? gather(embeddings_zero_.value(), idx, 0) : Tensor()};
    out = dequantize_rows_int4(rows, output_dim_, g_idx_.defined() ? g_idx_.value() : Tensor(), compute_dtype());
  } else {
    const Tensor rows = cast(gather(embeddings_.value(), idx, 0), compute_dtype());
    out = rows / expand_dims(gather(embeddings_scale_.value(), idx, 0), -1);
  }
  if (lora_enabled())
    out = cast(out + matmul(gather(lora_kernel_a().value(), idx, 0), lora_kernel_b().value()) *
                         (*lora_alpha() / static_cast<double>(*lora_rank())),
               compute_dtype());
  return out;
}

std::vector<StoredVariable> EmbeddingImpl::stored_variables() const {
  if (!embeddings_scale_.defined()) return LoraLayer::stored_variables();
  std::function<std::vector<Tensor>()> merge;
  // With LoRA, Keras merges the adapters into the dequantized table and quantizes it again.
  if (lora_enabled()) merge = [this] {
    const Tensor delta = matmul(lora_kernel_a().read_value_untracked(), lora_kernel_b().read_value_untracked()) *
                         (*lora_alpha() / static_cast<double>(*lora_rank()));
    const Tensor packed = embeddings_.read_value_untracked(), s = embeddings_scale_.read_value_untracked();
    if (dtype_policy().quantization_mode() == "int4") {
      const Int4Kernel k{packed, s, embeddings_zero_.defined() ? embeddings_zero_.read_value_untracked() : Tensor()};
      const Tensor g_idx = g_idx_.defined() ? g_idx_.read_value_untracked() : Tensor();
      const Int4Kernel m = quantize_table_int4(dequantize_rows_int4(k, output_dim_, g_idx, DType::float32) + delta,
                                               *o_.quantization_config);
      return std::vector<Tensor>{m.packed, m.scale, m.zero};
    }
    auto [q, qs] = quantize_table_int8(cast(packed, DType::float32) / expand_dims(s, -1) + delta, *o_.quantization_config);
    return std::vector<Tensor>{q, qs, Tensor()};
  };
  return detail::quantized_entries({embeddings_, Variable(), embeddings_scale_, embeddings_zero_, g_idx_}, merge);
}

}  // namespace kiln::layers
