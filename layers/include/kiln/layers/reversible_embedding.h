#pragma once
// ReversibleEmbedding: an Embedding that also projects back to the vocabulary
// (Keras's `ReversibleEmbedding`, for language models' tied input/output weights).
//   L::ReversibleEmbedding emb(100, 32);
//   Tensor h = emb(token_ids);                            // (batch, T) -> (batch, T, 32)
//   Tensor logits = emb(h, L::reverse_call());             // (batch, T, 32) -> (batch, T, 100)
// Reverse: logits = x @ embeddings^T (tie_weights, the default) or x @ reverse_embeddings
// (a separate trainable (output_dim, input_dim) weight, created with the embeddings'
// initializer, when tie_weights is false); with logit_soft_cap c, logits = tanh(logits / c) * c.
// reverse_dtype ("float32"/"float64") casts both operands of the projection. Weights, in
// Keras's order: embeddings, then reverse_embeddings. The forward call is Embedding's
// (mask_zero attaches the mask); a reverse call carries no mask. quantize("int8" | "int4")
// quantizes both tables as Keras does.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/layers/embedding.h"

namespace kiln::layers {

/// Options of ReversibleEmbedding (Keras's constructor arguments after input_dim and output_dim).
struct ReversibleEmbeddingOptions {
  bool tie_weights = true;  ///< Reverse through the transposed embeddings; false: a separate weight.
  InitializerArg embeddings_initializer = "uniform";  ///< Initializer of both tables.
  regularizers::RegularizerPtr embeddings_regularizer = nullptr;  ///< Penalty on the embeddings (none by default).
  regularizers::RegularizerPtr activity_regularizer = nullptr;  ///< Penalty on the output (none by default).
  constraints::ConstraintPtr embeddings_constraint = nullptr;  ///< Constraint on the embeddings (none by default).
  bool mask_zero = false;  ///< The forward output carries the mask x != 0.
  std::optional<std::string> reverse_dtype;  ///< The reverse projection's dtype; none: the layer's.
  std::optional<double> logit_soft_cap;  ///< Reverse logits become tanh(logits / c) * c; none: unchanged.
  std::optional<int> lora_rank;  ///< Enables LoRA of this rank when the layer is built (kiln/layers/lora.h).
  std::optional<double> lora_alpha;  ///< LoRA's scale numerator; Keras's Embedding resets it to the rank at build.
  /// A quantized layer's config (set by quantize(), read from Keras's files).
  std::optional<quantizers::QuantizationConfig> quantization_config;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ReversibleEmbeddingOptions, embeddings_initializer, embeddings_regularizer, activity_regularizer,
              embeddings_constraint, mask_zero, tie_weights, reverse_dtype, logit_soft_cap, lora_rank, lora_alpha,
              quantization_config)
};

/// The call options of a reverse call: `emb(h, reverse_call())` (Keras's `reverse=True`).
CallOptions reverse_call();

/// Embedding with a reverse projection (Keras's `ReversibleEmbedding`; see above). Users
/// create it through the handle `kiln::layers::ReversibleEmbedding(input_dim, output_dim, {...})`.
class ReversibleEmbeddingImpl : public EmbeddingImpl {
 public:
  using Options = ReversibleEmbeddingOptions;  ///< The options struct the constructor takes.
  /// `input_dim` is the vocabulary size, `output_dim` the vector width.
  ReversibleEmbeddingImpl(int64_t input_dim, int64_t output_dim, ReversibleEmbeddingOptions options = {});
  std::string class_name() const override { return "ReversibleEmbedding"; }
  Config get_config() const override;
  KILN_ARGS(ReversibleEmbeddingImpl, input_dim_, output_dim_)
  const ReversibleEmbeddingOptions& options() const { return ro_; }  ///< The options this layer was created with.
  /// Keras 3 configs need no upgrade (Embedding's hook would rename the class).
  static Config upgrade_entry(const Config& entry);
  /// The separate reverse table (output_dim, input_dim); undefined with tie_weights or before build.
  Variable reverse_embeddings() const { return reverse_embeddings_; }
  /// Embedding's mask after a forward call; none after a reverse one (Keras sets no mask there).
  Tensor compute_mask(const Tensor& x, const Tensor& previous_mask) override;
  /// Keras's ReversibleEmbedding.quantize: the table as Embedding quantizes it, and the
  /// separate reverse table (without tie_weights) per vocabulary column: int8 with one
  /// scale per column, or int4 packed along output_dim with one scale per column or, per
  /// group of block_size rows, a scale and a zero point. Reverse calls quantize their
  /// inputs per row when the config has an activation quantizer (int8's default).
  void quantize(const std::string& mode,
                const std::optional<quantizers::QuantizationConfig>& config = std::nullopt) override;
  /// ReversibleEmbedding itself, not its subclasses (Keras's type check).
  bool supports_quantization() const override { return class_name() == "ReversibleEmbedding"; }
  /// The reverse table's scales after quantize (without tie_weights): (input_dim,), or
  /// int4's grouped (n_groups, input_dim); undefined otherwise.
  Variable reverse_embeddings_scale() const { return reverse_scale_; }
  /// int4's grouped zero points of the reverse table, (n_groups, input_dim) float32 as Keras
  /// creates them; undefined otherwise.
  Variable reverse_embeddings_zero() const { return reverse_zero_; }
  /// Embedding's entries, then reverse_embeddings and (quantized) its scale and zero points.
  std::vector<StoredVariable> stored_variables() const override;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  /// Takes the keyword `reverse` (a bool).
  std::vector<Tensor> call_kwargs(const std::vector<Tensor>& xs, const CallKwargs& kwargs, const Tensor& mask,
                                  bool training) override;
  using EmbeddingImpl::build;
  using EmbeddingImpl::call;

 private:
  Tensor reverse(const Tensor& x) const;
  /// The reverse projection of a quantized layer (Keras's _int8_call and _int4_call with reverse).
  Tensor quantized_reverse(const Tensor& x) const;
  /// The quantized reverse table's variables (Keras's _int8_build, _int4_build).
  void build_quantized_reverse();
  ReversibleEmbeddingOptions ro_;
  Variable reverse_embeddings_, reverse_scale_, reverse_zero_;
  bool last_call_reversed_ = false;  // read by compute_mask, which the base calls right after call()
};

KILN_LAYER_HANDLE(ReversibleEmbedding);

}  // namespace kiln::layers
