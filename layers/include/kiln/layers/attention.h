#pragma once
// Dot-product (Luong) Attention and AdditiveAttention (Bahdanau), as Keras's.
// Both are called on a list [query, value] or [query, value, key]:
//   query (batch, Tq, dim), value (batch, Tv, dim), key (batch, Tv, dim) -> (batch, Tq, dim).
// Masks attached to the inputs (kiln/nn/masking.h) are used as Keras's
// [query_mask, value_mask]: masked values get no weight, masked queries give 0.
//
//   namespace L = kiln::layers;
//   L::Attention att({.use_scale = true});
//   kiln::Tensor y = att({q, v});
//   auto [out, scores] = att->attend({q, v}, {.return_attention_scores = true, .use_causal_mask = true});
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Keras's call keywords of the attention layers.
struct AttentionCallOptions {
  /// Also return the attention weights (after masking and softmax), (batch, Tq, Tv).
  bool return_attention_scores = false;
  /// Position i attends only to positions j <= i (decoder self-attention).
  bool use_causal_mask = false;
  bool training = false;  ///< Runs in training mode (attention dropout on).
};

/// Options of Attention (Keras's `Attention` constructor arguments).
struct AttentionOptions {
  bool use_scale = false;  ///< Learns a scalar that scales the scores.
  std::string score_mode = "dot";  ///< How scores are computed: "dot" (query · key) or "concat" (tanh(query + key)).
  double dropout = 0.0;  ///< Dropout rate on the attention weights in training.
  std::optional<uint64_t> seed;  ///< Seed of the dropout; none: the global generator.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(AttentionOptions, use_scale, score_mode, dropout, seed)
};

/// Dot-product (Luong) attention, Keras's `Attention`: scores = query · keyᵀ
/// (optionally scaled, or the "concat" score), softmax over Tv, then weights · value.
/// Called on [query, value] or [query, value, key]: query (batch, Tq, dim), value (batch,
/// Tv, dim_v), key (batch, Tv, dim) -> (batch, Tq, dim_v). Defaults: use_scale false, "dot".
/// Users create it through the handle `kiln::layers::Attention({...})`.
class AttentionImpl : public Layer {
 public:
  using Options = AttentionOptions;  ///< The options struct the constructor takes.
  /// Creates the layer from its options.
  explicit AttentionImpl(AttentionOptions options = {});
  std::string class_name() const override { return "Attention"; }
  Config get_config() const override;
  KILN_ARGS(AttentionImpl)
  bool takes_list() const override { return true; }
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  using Layer::compute_output_shape;
  const AttentionOptions& options() const { return o_; }  ///< The options this layer was created with.

  /// The output and the attention weights (the latter undefined unless asked for).
  std::pair<Tensor, Tensor> attend(const std::vector<Tensor>& inputs, AttentionCallOptions call = {});

 protected:
  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  std::vector<Tensor> call_masked(const std::vector<Tensor>& xs, const Tensor& mask, bool training) override;
  /// Keras's use_causal_mask and return_attention_scores keywords.
  std::vector<Tensor> call_kwargs(const std::vector<Tensor>& xs, const CallKwargs& kwargs, const Tensor& mask,
                                  bool training) override;
  using Layer::build;
  using Layer::call;
  using Layer::call_masked;
  /// (batch, Tq, Tv) scores from query and key.
  virtual Tensor scores(const Tensor& query, const Tensor& key);
  /// Throws unless `shapes` is a valid [query, value(, key)] list.
  void validate(const std::vector<Shape>& shapes) const;

  /// The layer's options.
  AttentionOptions o_;
  /// The learned scale (use_scale) and concat score weight ("concat"); undefined when unused.
  ///@{
  Variable scale_, concat_score_weight_;
  ///@}

 private:
  uint64_t calls_ = 0;
};

KILN_LAYER_HANDLE(Attention);

/// Options of AdditiveAttention (Keras's `AdditiveAttention` constructor arguments).
struct AdditiveAttentionOptions {
  bool use_scale = true;  ///< Learns the per-dimension scale (dim,) of the scores.
  double dropout = 0.0;  ///< Dropout rate on the attention weights in training.
  std::optional<uint64_t> seed;  ///< Seed of the dropout; none: the global generator.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(AdditiveAttentionOptions, use_scale, dropout, seed)
};

/// Additive (Bahdanau) attention, Keras's `AdditiveAttention`:
/// scores = sum(scale * tanh(query[:, :, None] + key[:, None]), -1); scale (dim,) when use_scale.
/// Called like Attention on [query, value(, key)] -> (batch, Tq, dim_v); use_scale defaults to true.
/// Users create it through the handle `kiln::layers::AdditiveAttention({...})`.
class AdditiveAttentionImpl : public AttentionImpl {
 public:
  using Options = AdditiveAttentionOptions;  ///< The options struct the constructor takes.
  /// Creates the layer from its options.
  explicit AdditiveAttentionImpl(AdditiveAttentionOptions options = {});
  std::string class_name() const override { return "AdditiveAttention"; }
  Config get_config() const override;
  KILN_ARGS(AdditiveAttentionImpl)
  const AdditiveAttentionOptions& options() const { return a_; }  ///< The options this layer was created with.

 protected:
  void build(const std::vector<Shape>& input_shapes) override;
  Tensor scores(const Tensor& query, const Tensor& key) override;

 private:
  AdditiveAttentionOptions a_;
};

KILN_LAYER_HANDLE(AdditiveAttention);

}  // namespace kiln::layers
