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
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

struct EmbeddingOptions {
  InitializerArg embeddings_initializer = "uniform";
  regularizers::RegularizerPtr embeddings_regularizer = nullptr;
  regularizers::RegularizerPtr activity_regularizer = nullptr;
  constraints::ConstraintPtr embeddings_constraint = nullptr;
  bool mask_zero = false;  // the output carries the mask x != 0
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(EmbeddingOptions, embeddings_initializer, embeddings_regularizer, activity_regularizer,
              embeddings_constraint, mask_zero)
};

class EmbeddingImpl : public Layer {
 public:
  EmbeddingImpl(int64_t input_dim, int64_t output_dim, EmbeddingOptions options = {});
  std::string class_name() const override { return "Embedding"; }
  Config get_config() const override;
  using Options = EmbeddingOptions;
  const EmbeddingOptions& options() const { return o_; }
  KILN_ARGS(EmbeddingImpl, input_dim_, output_dim_)
  /// tf.keras 2's input_length declares the input shape.
  static Config upgrade_entry(const Config& entry);
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  Variable embeddings() const { return embeddings_; }
  /// x != 0 with mask_zero, else none (Keras 3's Embedding.compute_mask).
  Tensor compute_mask(const Tensor& x, const Tensor& previous_mask) override;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  int64_t input_dim_, output_dim_;
  EmbeddingOptions o_;
  Variable embeddings_;
};

KILN_LAYER_HANDLE(Embedding);

}  // namespace kiln::layers
