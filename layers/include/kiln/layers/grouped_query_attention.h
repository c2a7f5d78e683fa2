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

/// Options of GroupedQueryAttention (Keras's `GroupedQueryAttention` constructor arguments
/// after head_dim, num_query_heads and num_key_value_heads).
struct GroupedQueryAttentionOptions {
  bool use_bias = true;  ///< The projections have biases.
  bool use_gate = false;  ///< A sigmoid gate projected from the query scales the attention output.
  std::optional<int64_t> sliding_window;  ///< Query i attends only to keys j with |i - j| < sliding_window; none: all.
  double dropout = 0.0;  ///< Dropout rate on the attention weights in training.
  InitializerArg kernel_initializer = "glorot_uniform";  ///< Initializer of the projection kernels.
  InitializerArg bias_initializer = "zeros";  ///< Initializer of the projection biases.
  regularizers::RegularizerPtr kernel_regularizer = nullptr;  ///< Penalty on the projection kernels (none by default).
  regularizers::RegularizerPtr bias_regularizer = nullptr;  ///< Penalty on the projection biases (none by default).
  regularizers::RegularizerPtr activity_regularizer = nullptr;  ///< Penalty on the layer's output (none by default).
  constraints::ConstraintPtr kernel_constraint = nullptr;  ///< Constraint on the projection kernels (none by default).
  constraints::ConstraintPtr bias_constraint = nullptr;  ///< Constraint on the projection biases (none by default).
  std::optional<uint64_t> seed;  ///< Seed of the dropout; none: the global generator.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(GroupedQueryAttentionOptions, use_bias, use_gate, sliding_window, dropout, kernel_initializer,
              bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer, kernel_constraint,
              bias_constraint, seed)
};

/// Grouped-query attention (Keras's `GroupedQueryAttention`): num_query_heads query heads
/// share num_key_value_heads key/value heads, each serving num_query_heads /
/// num_key_value_heads query heads. Called on [query, value] or [query, value, key], each
/// (batch, T, features); query and value have the same number of features, which is also
/// the output's: (batch, Tq, features). Takes the call keywords of MultiHeadAttentionCall.
/// Users create it through the handle
/// `kiln::layers::GroupedQueryAttention(head_dim, num_query_heads, num_key_value_heads)`.
class GroupedQueryAttentionImpl : public Layer {
 public:
  using Options = GroupedQueryAttentionOptions;  ///< The options struct the constructor takes.
  /// `head_dim` the width of each head; `num_query_heads` query heads share
  /// `num_key_value_heads` key/value heads (which must divide it).
  GroupedQueryAttentionImpl(int64_t head_dim, int64_t num_query_heads, int64_t num_key_value_heads,
                            GroupedQueryAttentionOptions options = {});
  std::string class_name() const override { return "GroupedQueryAttention"; }
  Config get_config() const override;
  KILN_ARGS(GroupedQueryAttentionImpl, head_dim_, num_query_heads_, num_key_value_heads_)
  bool takes_list() const override { return true; }
  bool positional_inputs() const override { return true; }
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  using Layer::compute_output_shape;
  const GroupedQueryAttentionOptions& options() const { return o_; }  ///< The options this layer was created with.

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
