#pragma once
// Embedding: looks up rows of a trainable (input_dim, output_dim) table.
//   x: (batch, ...) integer indices in [0, input_dim) -> (batch, ..., output_dim)
//   Float inputs are cast to int64 first (as Keras casts to int32).
//   L::Embedding(1000, 64);   // embeddings initialised uniform(-0.05, 0.05)
//   With mask_zero, index 0 is padding: the output carries the mask ids != 0
//   (kiln/nn/masking.h), which recurrent layers, losses and metrics honour.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/layers/lora.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"
#include "kiln/nn/quantizers.h"

namespace kiln::layers {

/// Options of Embedding (Keras's `Embedding` constructor arguments after input_dim and output_dim).
struct EmbeddingOptions {
  InitializerArg embeddings_initializer = "uniform";  ///< Initializer of the embeddings table.
  regularizers::RegularizerPtr embeddings_regularizer = nullptr;  ///< Penalty on the table (none by default).
  regularizers::RegularizerPtr activity_regularizer = nullptr;  ///< Penalty on the output (none by default).
  constraints::ConstraintPtr embeddings_constraint = nullptr;  ///< Constraint on the table (none by default).
  bool mask_zero = false;  ///< The output carries the mask x != 0 (index 0 is padding).
  std::optional<int> lora_rank;  ///< Enables LoRA of this rank when the layer is built (kiln/layers/lora.h).
  std::optional<double> lora_alpha;  ///< LoRA's scale numerator; Keras's Embedding resets it to the rank at build.
  /// A quantized layer's config (set by quantize(), read from Keras's files).
  std::optional<quantizers::QuantizationConfig> quantization_config;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(EmbeddingOptions, embeddings_initializer, embeddings_regularizer, activity_regularizer,
              embeddings_constraint, mask_zero, quantization_config, lora_rank, lora_alpha)
};

/// Maps integer indices to dense vectors (Keras's `Embedding`): x (batch, ...) of indices in
/// [0, input_dim) -> (batch, ..., output_dim), rows of the embeddings table (input_dim,
/// output_dim). Defaults: "uniform" initializer, no mask. Users create it through the handle
/// `kiln::layers::Embedding(input_dim, output_dim, {...})`.
class EmbeddingImpl : public LoraLayer, public quantizers::Quantizable {
 public:
  /// `input_dim` is the vocabulary size, `output_dim` the vector width.
  EmbeddingImpl(int64_t input_dim, int64_t output_dim, EmbeddingOptions options = {});
  std::string class_name() const override { return "Embedding"; }
  /// "input_dim=10, output_dim=4": quoted by errors in call() (an index out of range).
  std::string error_arguments() const override;
  Config get_config() const override;
  using Options = EmbeddingOptions;  ///< The options struct the constructor takes.
  const EmbeddingOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(EmbeddingImpl, input_dim_, output_dim_)
  /// tf.keras 2's input_length declares the input shape.
  static Config upgrade_entry(const Config& entry);
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  Variable embeddings() const { return embeddings_; }  ///< The table (input_dim, output_dim); undefined before build.
  /// x != 0 with mask_zero, else none (Keras 3's Embedding.compute_mask).
  Tensor compute_mask(const Tensor& x, const Tensor& previous_mask) override;
  /// Keras's quantize. "int8": the table becomes int8 with one float scale per row (row ≈
  /// int8 / embeddings_scale); the policy becomes "int8_from_<policy>". "int4": the rows'
  /// int4 values are packed two per byte, (input_dim, ceil(output_dim / 2)), with per row a
  /// scale and a zero point for each group of block_size values (default 128), or one scale
  /// per row (block_size -1); the policy becomes "int4/<block_size>_from_<policy>".
  void quantize(const std::string& mode,
                const std::optional<quantizers::QuantizationConfig>& config = std::nullopt) override;
  /// Only Embedding itself: a subclass's other weights would stay float (Keras's type check).
  bool supports_quantization() const override { return class_name() == "Embedding"; }
  /// After quantize: (input_dim,), or int4's grouped (input_dim, n_groups); undefined otherwise.
  Variable embeddings_scale() const { return embeddings_scale_; }
  /// int4's grouped zero points, (input_dim, n_groups) int8; undefined otherwise.
  Variable embeddings_zero() const { return embeddings_zero_; }
  /// int4's grouped value-to-group map, floor(j / block_size) as float32; undefined otherwise.
  Variable g_idx() const { return g_idx_; }
  /// Keras's order for a quantized layer: embeddings, embeddings_scale (then embeddings_zero, g_idx).
  std::vector<StoredVariable> stored_variables() const override;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  /// The kernel that LoRA adapts, with its regularizer and constraint.
  LoraBase lora_base() const override;
  /// The quantized table's rows dequantized (and the LoRA delta).
  Tensor quantized_lookup(const Tensor& indices) const;
  /// The quantized table's variables for o_.quantization_config (Keras's _int8_build, _int4_build).
  void build_quantized();
  /// Replaces the float table by its quantized form for `config` (quantize() without the
  /// checks and the policy, for ReversibleEmbedding).
  void quantize_table(const quantizers::QuantizationConfig& config);
  /// The config the table was quantized with; none before.
  const std::optional<quantizers::QuantizationConfig>& quantization_config() const { return o_.quantization_config; }
  using Layer::build;
  using Layer::call;

  // Protected for ReversibleEmbedding, which extends this layer.
  int64_t input_dim_;  ///< The vocabulary size.
  int64_t output_dim_;  ///< The vector width.
  Variable embeddings_;  ///< The table (input_dim, output_dim), created by build().
  Variable embeddings_scale_;  ///< The scales once quantized.
  /// int4's grouped zero points and value-to-group map.
  /// @{
  Variable embeddings_zero_, g_idx_;
  /// @}

 private:
  EmbeddingOptions o_;
};

KILN_LAYER_HANDLE(Embedding);

}  // namespace kiln::layers
