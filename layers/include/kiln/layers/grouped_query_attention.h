#pragma once
// GroupedQueryAttention, as keras.layers.GroupedQueryAttention: num_query_heads
// query heads share num_key_value_heads key/value heads (each key/value head
// serves num_query_heads / num_key_value_heads query heads). Called on
// [query, value] or [query, value, key], each (batch, T, features); query and
// value have the same number of features, which is also the output's.
//
//   namespace L = kiln::layers;
//   L::GroupedQueryAttention gqa(16, 8, 2);   // head_dim, query heads, key/value heads
//   kiln::Tensor y = gqa({x, x});
//   auto [y2, scores] = gqa->attend(x, x, {.return_attention_scores = true, .use_causal_mask = true});
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/einsum_dense.h"
#include "kiln/layers/multi_head_attention.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

struct GroupedQueryAttentionOptions {
  bool use_bias = true;
  bool use_gate = false;
  std::optional<int64_t> sliding_window;
  double dropout = 0.0;
  InitializerArg kernel_initializer = "glorot_uniform";
  InitializerArg bias_initializer = "zeros";
  regularizers::RegularizerPtr kernel_regularizer = nullptr;
  regularizers::RegularizerPtr bias_regularizer = nullptr;
  regularizers::RegularizerPtr activity_regularizer = nullptr;
  constraints::ConstraintPtr kernel_constraint = nullptr;
  constraints::ConstraintPtr bias_constraint = nullptr;
  std::optional<uint64_t> seed;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(GroupedQueryAttentionOptions, use_bias, use_gate, sliding_window, dropout, kernel_initializer,
              bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer, kernel_constraint,
              bias_constraint, seed)
};

class GroupedQueryAttentionImpl : public Layer {
 public:
  using Options = GroupedQueryAttentionOptions;
  GroupedQueryAttentionImpl(int64_t head_dim, int64_t num_query_heads, int64_t num_key_value_heads,
                            GroupedQueryAttentionOptions options = {});
  std::string class_name() const override { return "GroupedQueryAttention"; }
  Config get_config() const override;
  KILN_ARGS(GroupedQueryAttentionImpl, head_dim_, num_query_heads_, num_key_value_heads_)
  bool takes_list() const override { return true; }
  bool positional_inputs() const override { return true; }
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  using Layer::compute_output_shape;
  const GroupedQueryAttentionOptions& options() const { return o_; }

  /// The output and the attention weights, (batch, num_query_heads, Tq, Tv)
  /// (undefined unless return_attention_scores).
  std::pair<Tensor, Tensor> attend(const Tensor& query, const Tensor& value, MultiHeadAttentionCall call = {});

 protected:
  void build(const std::vector<Shape>& input_shapes) override;
  std::vector<Tensor> call(const std::vector<Tensor>& xs, bool training) override;
  std::vector<Tensor> call_masked(const std::vector<Tensor>& xs, const Tensor& mask, bool training) override;
  /// Keras's key, attention_mask, use_causal_mask and return_attention_scores keywords.
  std::vector<Tensor> call_kwargs(const std::vector<Tensor>& xs, const CallKwargs& kwargs, const Tensor& mask,
                                  bool training) override;
  using Layer::build;
  using Layer::call;
  using Layer::call_masked;

 private:
  void check_shapes(const std::vector<Shape>& shapes) const;

  int64_t head_dim_, num_query_heads_, num_key_value_heads_;
  GroupedQueryAttentionOptions o_;
  std::shared_ptr<EinsumDenseImpl> query_, key_, value_, gate_, output_;
  uint64_t calls_ = 0;
};

KILN_LAYER_HANDLE(GroupedQueryAttention);

}  // namespace kiln::layers
