#pragma once
// What the attention layers share: their EinsumDense projections, Keras's
// attention-mask rules, its masked softmax, dropout on attention weights, and
// hiding input masks from the projection sublayers.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/core/tensor.h"
#include "kiln/layers/einsum_dense.h"
#include "kiln/layers/multi_head_attention.h"
#include "kiln/nn/call_kwargs.h"

namespace kiln::layers::detail {

/// Keras's call keywords of MultiHeadAttention and GroupedQueryAttention
/// (query, value, key, attention_mask, use_causal_mask,
/// return_attention_scores) read from `kwargs` into `call`; `inputs` gets a
/// value given by keyword (tf.keras 2 wrote it so). Other keywords go to `rest`.
MultiHeadAttentionCall attention_call_from_kwargs(const Layer& layer, std::vector<Tensor>& inputs,
                                                  const CallKwargs& kwargs, CallKwargs& rest, bool training);
/// {output} or {output, scores} as return_attention_scores asks.
std::vector<Tensor> attention_outputs(const std::pair<Tensor, Tensor>& out, bool return_attention_scores);

/// A projection sublayer named `name`, with the initializers, regularizers and
/// constraints of the attention layer's options `o` (Keras's
/// _get_common_kwargs_for_sublayer); a bias over bias_axes when o.use_bias.
template <class O>
std::shared_ptr<EinsumDenseImpl> attention_projection(const O& o, const DTypePolicy& dtype, const std::string& equation,
                                                      Shape output_shape, const std::string& bias_axes,
                                                      const std::string& name,
                                                      const std::string& activation = "linear") {
  EinsumDenseOptions e{.activation = activation,
                       .kernel_initializer = o.kernel_initializer,
                       .bias_initializer = o.bias_initializer,
                       .kernel_regularizer = o.kernel_regularizer,
                       .bias_regularizer = o.bias_regularizer,
                       .activity_regularizer = o.activity_regularizer,
                       .kernel_constraint = o.kernel_constraint,
                       .bias_constraint = o.bias_constraint,
                       .name = name,
                       .dtype = dtype};
  if (o.use_bias) e.bias_axes = bias_axes;
  return EinsumDense(equation, std::move(output_shape), e).ptr();
}

/// A layer entry whose config gives output_shape as an int, with it as a
/// one-element list (Keras accepts both; Kiln reads the list).
Config output_shape_as_list(const Config& entry);

/// (1, Tq, Tv) bool: row >= column.
Tensor causal_mask(int64_t tq, int64_t tv);

/// Keras's _compute_attention_mask: the query mask as (B, Tq, 1), the value
/// and key masks as (B, 1, Tv), the causal and sliding-window masks as
/// (1, Tq, Tv), and the given mask, ANDed; undefined when there is none.
/// masks = {query_mask, value_mask, key_mask}, each possibly undefined.
Tensor combined_attention_mask(const std::vector<Tensor>& masks, int64_t tq, int64_t tv, bool causal,
                               std::optional<int64_t> sliding_window, const Tensor& attention_mask);

/// Softmax over `axes` with masked positions excluded (and zero in the result,
/// so a fully masked row is all zeros); the mask gains axes at
/// -2 * axes.size() - 1 until it has the scores' rank.
Tensor masked_softmax(const Tensor& scores, Tensor mask, const std::vector<int>& axes);

/// Inverted dropout of attention weights: a fresh mask per call, reproducible
/// from `seed` (call counts the calls).
Tensor dropout_weights(const Tensor& weights, double rate, std::optional<uint64_t> seed, uint64_t& call);

/// Removes the masks of `ts` for its lifetime (Keras clears them before the
/// projections, which do not take masks) and restores them afterwards.
class MaskStash {
 public:
  explicit MaskStash(std::vector<Tensor> ts);
  ~MaskStash();
  MaskStash(const MaskStash&) = delete;
  MaskStash& operator=(const MaskStash&) = delete;
  /// The mask input i had (undefined when none or past the end).
  Tensor mask(std::size_t i) const { return i < masks_.size() ? masks_[i] : Tensor(); }

 private:
  std::vector<Tensor> ts_, masks_;
};

/// {query_mask, value_mask, key_mask} for `inputs` = {query, value[, key]}:
/// each keyword set in `call`, else the mask `stash` took from that input.
/// A keyword mask must have its input's (batch, T) shape.
std::vector<Tensor> attention_input_masks(const Layer& layer, const MaskStash& stash, const MultiHeadAttentionCall& call,
                                          const std::vector<Tensor>& inputs);

}  // namespace kiln::layers::detail
