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
  bool training = false;
};

struct AttentionOptions {
  bool use_scale = false;
  std::string score_mode = "dot";  // "dot" or "concat"
  double dropout = 0.0;
  std::optional<uint64_t> seed;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(AttentionOptions, use_scale, score_mode, dropout, seed)
};

class AttentionImpl : public Layer {
 public:
  using Options = AttentionOptions;
  explicit AttentionImpl(AttentionOptions options = {});
  std::string class_name() const override { return "Attention"; }
  Config get_config() const override;
  KILN_ARGS(AttentionImpl)
  bool takes_list() const override { return true; }
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  using Layer::compute_output_shape;
  const AttentionOptions& options() const { return o_; }

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
  void validate(const std::vector<Shape>& shapes) const;

  AttentionOptions o_;
  Variable scale_, concat_score_weight_;

 private:
  uint64_t calls_ = 0;
};

KILN_LAYER_HANDLE(Attention);

struct AdditiveAttentionOptions {
  bool use_scale = true;
  double dropout = 0.0;
  std::optional<uint64_t> seed;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(AdditiveAttentionOptions, use_scale, dropout, seed)
};

/// scores = sum(scale * tanh(query[:, :, None] + key[:, None]), -1); scale (dim,) when use_scale.
class AdditiveAttentionImpl : public AttentionImpl {
 public:
  using Options = AdditiveAttentionOptions;
  explicit AdditiveAttentionImpl(AdditiveAttentionOptions options = {});
  std::string class_name() const override { return "AdditiveAttention"; }
  Config get_config() const override;
  KILN_ARGS(AdditiveAttentionImpl)
  const AdditiveAttentionOptions& options() const { return a_; }

 protected:
  void build(const std::vector<Shape>& input_shapes) override;
  Tensor scores(const Tensor& query, const Tensor& key) override;

 private:
  AdditiveAttentionOptions a_;
};

KILN_LAYER_HANDLE(AdditiveAttention);

}  // namespace kiln::layers
