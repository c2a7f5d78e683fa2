// Embedding quantized to int8 (Keras's Embedding.quantize("int8") and _int8_call).
#include <memory>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/layers/embedding.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"

namespace kiln::layers {

namespace {

/// One scale per row (Keras reduces over output_dim, usually the shorter axis).
std::pair<Tensor, Tensor> quantize_table(const Tensor& table, const quantizers::QuantizationConfig& config) {
  auto [q, scale] = quantizers::abs_max_quantize(table, -1, config.weight_quantizer.value_or(quantizers::AbsMaxQuantizer{}));
  return {q, squeeze(scale, {-1})};
}

}  // namespace

void EmbeddingImpl::quantize(const std::string& mode, const std::optional<quantizers::QuantizationConfig>& config) {
  if (!supports_quantization())
    throw TypeError("Layer '" + name() + "' (" + class_name() + "): Layer " + class_name() +
                    " does not have a `quantize()` method implemented.");
  const DTypePolicy policy = quantizers::check_quantize_args(*this, mode);
  const quantizers::QuantizationConfig c = config.value_or(quantizers::QuantizationConfig{});
  auto [q, scale] = quantize_table(embeddings_.read_value_untracked(), c);
  remove_weight(embeddings_);
  embeddings_ = add_weight("embeddings", q.shape(), {.initializer = "zeros", .trainable = false, .dtype = DType::int8});
  embeddings_scale_ = add_weight("embeddings_scale", scale.shape(), {.initializer = "ones", .trainable = false});
  embeddings_.assign(q);
  embeddings_scale_.assign(scale.cast(embeddings_scale_.dtype()));
  o_.quantization_config = c;
  set_dtype_policy(policy);
}

Tensor EmbeddingImpl::int8_lookup(const Tensor& idx) const {
  const Tensor rows = cast(gather(embeddings_.value(), idx, 0), compute_dtype());
  Tensor out = rows / expand_dims(gather(embeddings_scale_.value(), idx, 0), -1);
  if (lora_enabled())
    out = cast(out + matmul(gather(lora_kernel_a().value(), idx, 0), lora_kernel_b().value()) *
                         (*lora_alpha() / static_cast<double>(*lora_rank())),
               compute_dtype());
  return out;
}

std::vector<StoredVariable> EmbeddingImpl::stored_variables() const {
  if (!embeddings_scale_.defined()) return LoraLayer::stored_variables();
  StoredVariable table{embeddings_, {}}, scale{embeddings_scale_, {}};
  if (lora_enabled()) {
    // Keras merges the adapters into the dequantized table and quantizes it again; the table and
    // its scale come from one requantization, done once when the file is written.
    auto merged = std::make_shared<std::optional<std::pair<Tensor, Tensor>>>();
    auto requantize = [this, merged] {
      if (*merged) return;
      const Tensor dequantized = cast(embeddings_.read_value_untracked(), DType::float32) /
                                 expand_dims(embeddings_scale_.read_value_untracked(), -1);
      const Tensor delta = matmul(lora_kernel_a().read_value_untracked(), lora_kernel_b().read_value_untracked()) *
                           (*lora_alpha() / static_cast<double>(*lora_rank()));
      *merged = quantize_table(dequantized + delta, *o_.quantization_config);
    };
    table.saved = [requantize, merged] { requantize(); return (*merged)->first; };
    scale.saved = [requantize, merged] { requantize(); return (*merged)->second; };
  }
  return {table, scale};
}

}  // namespace kiln::layers
