// ReversibleEmbedding quantized to int8 or int4 (Keras's ReversibleEmbedding.quantize
// and its quantized reverse calls).
#include <optional>
#include <tuple>

#include "kiln/core/error.h"
#include "kiln/layers/reversible_embedding.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "quantized_kernel.h"

namespace kiln::layers {

namespace {

/// The separate reverse table (output_dim, input_dim) in its quantized form.
struct ReverseTable {
  Tensor values;  ///< int8, or int4 packed along output_dim.
  Tensor scale;  ///< (input_dim,), or int4's grouped (n_groups, input_dim).
  Tensor zero;  ///< int4's grouped zero points; undefined otherwise.
};

/// Keras quantizes the reverse table per vocabulary column (over axis 0).
ReverseTable quantize_reverse(const Tensor& table, const quantizers::QuantizationConfig& c) {
  if (c.mode == "int4") {
    if (const auto block = detail::int4_groups(c)) {
      auto g = quantizers::abs_max_quantize_grouped_with_zero_point(table, *block);
      return {quantizers::pack_int4(g.values, 0), g.scale, g.zero};
    }
    auto [v, s] = quantizers::abs_max_quantize(
        table, 0, c.weight_quantizer.value_or(quantizers::AbsMaxQuantizer{.value_min = -8, .value_max = 7}));
    return {quantizers::pack_int4(v, 0), squeeze(s, {0}), Tensor()};
  }
  auto [v, s] = quantizers::abs_max_quantize(table, 0, c.weight_quantizer.value_or(quantizers::AbsMaxQuantizer{}));
  return {v, squeeze(s, {0}), Tensor()};
}

}  // namespace

void ReversibleEmbeddingImpl::quantize(const std::string& mode,
                                       const std::optional<quantizers::QuantizationConfig>& config) {
  if (!supports_quantization())
    throw TypeError("Layer '" + name() + "' (" + class_name() + "): Layer " + class_name() +
                    " does not have a `quantize()` method implemented.");
  const quantizers::QuantizeArgs args = quantizers::check_quantize_args(*this, mode, config);
  std::optional<ReverseTable> reverse;
  if (!ro_.tie_weights) reverse = quantize_reverse(reverse_embeddings_.read_value_untracked(), args.config);
  quantize_table(args.config);
  ro_.quantization_config = args.config;
  if (reverse) {
    // Keras builds the reverse table's variables after the forward table's.
    remove_weight(reverse_embeddings_);
    build_quantized_reverse();
    reverse_embeddings_.assign(reverse->values);
    reverse_scale_.assign(reverse->scale.cast(reverse_scale_.dtype()));
    if (reverse_zero_.defined()) reverse_zero_.assign(reverse->zero.cast(reverse_zero_.dtype()));
  }
  set_dtype_policy(args.policy);
}

void ReversibleEmbeddingImpl::build_quantized_reverse() {
  const quantizers::QuantizationConfig& c = *ro_.quantization_config;
  const bool int4 = c.mode == "int4";
  const std::optional<int> block = int4 ? detail::int4_groups(c) : std::nullopt;
  reverse_embeddings_ = add_weight("reverse_embeddings", {int4 ? (output_dim_ + 1) / 2 : output_dim_, input_dim_},
                                   {.initializer = "zeros", .trainable = false, .dtype = DType::int8});
  const Shape scale_shape = block ? Shape{(output_dim_ + *block - 1) / *block, input_dim_} : Shape{input_dim_};
  reverse_scale_ = add_weight("reverse_embeddings_scale", scale_shape, {.initializer = "ones", .trainable = false});
  // Keras gives the reverse zero points the variables' float dtype.
  if (block) reverse_zero_ = add_weight("reverse_embeddings_zero", scale_shape, {.initializer = "zeros", .trainable = false});
}

Tensor ReversibleEmbeddingImpl::quantized_reverse(const Tensor& x) const {
  const DType dt = compute_dtype();
  const auto& aq = ro_.quantization_config->activation_quantizer;
  Tensor inputs = cast(x, dt), inputs_scale = ones({1}, dt);
  if (aq) std::tie(inputs, inputs_scale) = quantizers::abs_max_quantize(inputs, -1, *aq);
  const bool tied = ro_.tie_weights;
  const Tensor scale = tied ? embeddings_scale_.value() : reverse_scale_.value();
  Tensor logits;
  if (dtype_policy().quantization_mode() == "int4") {
    const Tensor packed = tied ? transpose(embeddings_.value()) : reverse_embeddings_.value();
    const Tensor unpacked = quantizers::unpack_int4(packed, output_dim_, 0);
    if (!g_idx_.defined()) {
      logits = cast(matmul(aq ? inputs : cast(inputs, dt), aq ? unpacked : cast(unpacked, dt)), dt) / (inputs_scale * scale);
    } else {
      // Grouped scales and zero points: Keras dequantizes the (output_dim, input_dim) table first.
      const Tensor s = tied ? transpose(scale) : scale;
      const Tensor z = tied ? transpose(embeddings_zero_.value()) : reverse_zero_.value();
      const Tensor table = quantizers::dequantize_with_sz_map(cast(unpacked, dt), s, z, g_idx_.value(), 0);
      logits = matmul(cast(inputs, dt), table) / inputs_scale;
    }
  } else {
    const Tensor kernel = tied ? transpose(embeddings_.value()) : reverse_embeddings_.value();
    logits = cast(matmul(aq ? inputs : cast(inputs, dt), aq ? kernel : cast(kernel, dt)), dt) / (inputs_scale * scale);
  }
  if (ro_.logit_soft_cap) logits = tanh(logits / *ro_.logit_soft_cap) * *ro_.logit_soft_cap;
  return logits;
}

std::vector<StoredVariable> ReversibleEmbeddingImpl::stored_variables() const {
  std::vector<StoredVariable> out = EmbeddingImpl::stored_variables();
  // Unquantized, the base lists every variable, the reverse table included.
  if (ro_.tie_weights || !reverse_scale_.defined()) return out;
  for (const Variable& v : {reverse_embeddings_, reverse_scale_, reverse_zero_})
    if (v.defined()) out.push_back({v, {}});
  return out;
}

}  // namespace kiln::layers
