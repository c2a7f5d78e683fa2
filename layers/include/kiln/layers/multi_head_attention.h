#pragma once
// MultiHeadAttention, as keras.layers.MultiHeadAttention: query, key and value
// are projected by EinsumDense sublayers ("query", "key", "value") to
// (batch, T, num_heads, key_dim), attended over attention_axes, and projected
// back by "attention_output". Called on a list [query, value] or
// [query, value, key]; masks attached to the inputs become Keras's
// query_mask / value_mask / key_mask unless those keywords are given.
//
//   namespace L = kiln::layers;
//   L::MultiHeadAttention mha(4, 16);
//   kiln::Tensor y = mha({x, x});                                // self-attention
//   auto [y2, scores] = mha->attend(x, x, {.return_attention_scores = true, .use_causal_mask = true});
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/einsum_dense.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Keras's call keywords of MultiHeadAttention.
struct MultiHeadAttentionCall {
  /// Defaults to value.
  Tensor key;
  /// Boolean (batch, Tq, Tv) (or broadcastable): true where a query may attend.
  Tensor attention_mask;
  /// query_mask, value_mask, key_mask: boolean (batch, Tq), (batch, Tv) and (batch, Tv),
  /// false at padded steps.
  /// Each, when undefined, is the mask attached to its input (Keras fills
  /// value_mask and key_mask the same way).
  /// @{
  Tensor query_mask;
  Tensor value_mask;
  Tensor key_mask;
  /// @}
  bool return_attention_scores = false;  ///< Also return the attention weights.
  bool use_causal_mask = false;  ///< Query i attends only to keys j <= i (decoder self-attention).
  bool training = false;  ///< Runs in training mode (attention dropout on).
};

/// Options of MultiHeadAttention (Keras's `MultiHeadAttention` constructor arguments after
/// num_heads and key_dim).
struct MultiHeadAttentionOptions {
  std::optional<int64_t> value_dim;  ///< Width of each value head; none: key_dim.
  double dropout = 0.0;  ///< Dropout rate on the attention weights in training.
  bool use_bias = true;  ///< The projections have biases.
  bool use_gate = false;  ///< A sigmoid gate projected from the query scales the attention output.
  /// Sizes of the output besides the batch and time axes; none: the query's last axis.
  std::optional<Shape> output_shape;
  /// The axes attention runs over; none: every axis between batch and features.
  std::optional<std::vector<int>> attention_axes;
  std::optional<int64_t> sliding_window;  ///< Query i attends only to keys j with |i - j| < sliding_window; none: all.
  InitializerArg kernel_initializer = "glorot_uniform";  ///< Initializer of the projection kernels.
  InitializerArg bias_initializer = "zeros";  ///< Initializer of the projection biases.
  regularizers::RegularizerPtr kernel_regularizer = nullptr;  ///< Penalty on the projection kernels (none by default).
  regularizers::RegularizerPtr bias_regularizer = nullptr;  ///< Penalty on the projection biases (none by default).
  regularizers::RegularizerPtr activity_regularizer = nullptr;  ///< Penalty on the layer's output (none by default).
  constraints::ConstraintPtr kernel_constraint = nullptr;  ///< Constraint on the projection kernels (none by default).
  constraints::ConstraintPtr bias_constraint = nullptr;  ///< Constraint on the projection biases (none by default).
  std::optional<uint64_t> seed;  ///< Seed of the dropout; none: the global generator.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(MultiHeadAttentionOptions, value_dim, dropout, use_bias, use_gate, output_shape, attention_axes,
              sliding_window, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
              activity_regularizer, kernel_constraint, bias_constraint, seed)
};

/// Multi-head attention (Keras's `MultiHeadAttention`): query, key and value are projected
/// by EinsumDense sublayers to (batch, T, num_heads, key_dim), attended over attention_axes
/// (softmax(q · kᵀ / sqrt(key_dim)) · v per head) and projected back by "attention_output".
/// Called on [query, value] or [query, value, key]: query (batch, Tq, dim) -> (batch, Tq,
/// dim); masks attached to the inputs become query_mask / value_mask / key_mask. Users create
/// it through the handle `kiln::layers::MultiHeadAttention(num_heads, key_dim, {...})`.
class MultiHeadAttentionImpl : public Layer {
 public:
  using Options = MultiHeadAttentionOptions;  ///< The options struct the constructor takes.
  /// `num_heads` attention heads, each with query and key width `key_dim`.
  MultiHeadAttentionImpl(int64_t num_heads, int64_t key_dim, MultiHeadAttentionOptions options = {});
  std::string class_name() const override { return "MultiHeadAttention"; }
  Config get_config() const override;
  /// Keras also accepts an int output_shape.
  static Config upgrade_entry(const Config& entry);
  KILN_ARGS(MultiHeadAttentionImpl, num_heads_, key_dim_)
  bool takes_list() const override { return true; }
  bool positional_inputs() const override { return true; }
  std::vector<Shape> compute_output_shape(const std::vector<Shape>& input_shapes) override;
  using Layer::compute_output_shape;
  const MultiHeadAttentionOptions& options() const { return o_; }  ///< The options this layer was created with.
  int64_t num_heads() const { return num_heads_; }  ///< The number of attention heads.
  int64_t key_dim() const { return key_dim_; }  ///< The width of each query and key head.

  /// The output and the attention weights, (batch, num_heads, Tq, Tv) for
  /// rank-3 inputs (undefined unless return_attention_scores).
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

  int64_t num_heads_, key_dim_;
  MultiHeadAttentionOptions o_;
  std::shared_ptr<EinsumDenseImpl> query_, key_, value_, gate_, output_;
  std::string dot_product_equation_, combine_equation_;
  std::vector<int> norm_axes_;
  uint64_t calls_ = 0;
};

KILN_LAYER_HANDLE(MultiHeadAttention);

}  // namespace kiln::layers
