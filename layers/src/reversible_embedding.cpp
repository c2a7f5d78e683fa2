// ReversibleEmbedding: Embedding's forward call, plus Keras 3's reverse projection.
#include "kiln/layers/reversible_embedding.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "config_fields.h"
#include "ops/elementwise_promotion.h"

namespace kiln::layers {

using namespace detail;

namespace {

EmbeddingOptions embedding_options(const ReversibleEmbeddingOptions& o) {
  EmbeddingOptions e{.embeddings_initializer = o.embeddings_initializer,
                     .embeddings_regularizer = o.embeddings_regularizer,
                     .activity_regularizer = o.activity_regularizer,
                     .embeddings_constraint = o.embeddings_constraint,
                     .mask_zero = o.mask_zero,
                     .lora_rank = o.lora_rank,
                     .lora_alpha = o.lora_alpha,
                     .quantization_config = o.quantization_config};
  e.name = o.name;
  e.trainable = o.trainable;
  e.dtype = o.dtype;
  e.input_shape = o.input_shape;
  return e;
}

}  // namespace

CallOptions reverse_call() {
  CallOptions o;
  o.kwargs.set("reverse", CallArg::boolean(true));
  return o;
}

ReversibleEmbeddingImpl::ReversibleEmbeddingImpl(int64_t input_dim, int64_t output_dim, ReversibleEmbeddingOptions o)
    : EmbeddingImpl(input_dim, output_dim, embedding_options(o)), ro_(std::move(o)) {
  if (ro_.reverse_dtype) dtype_from_name(*ro_.reverse_dtype);  // an unknown name is an error now, not at the call
  if (ro_.logit_soft_cap && *ro_.logit_soft_cap == 0.0)
    throw ValueError("ReversibleEmbedding: `logit_soft_cap` must be nonzero (logits are divided by it). Received: "
                     "logit_soft_cap=0");
}

void ReversibleEmbeddingImpl::build(const Shape& input_shape) {
  EmbeddingImpl::build(input_shape);
  const bool quantized = !dtype_policy().quantization_mode().empty();
  if (quantized) ro_.quantization_config = quantization_config();
  if (ro_.tie_weights) return;
  if (quantized) {
    build_quantized_reverse();
    return;
  }
  reverse_embeddings_ = add_weight("reverse_embeddings", {output_dim_, input_dim_},
                                   {.initializer = ro_.embeddings_initializer});
}

Tensor ReversibleEmbeddingImpl::call(const Tensor& x, bool training) {
  last_call_reversed_ = false;
  return EmbeddingImpl::call(x, training);
}

std::vector<Tensor> ReversibleEmbeddingImpl::call_kwargs(const std::vector<Tensor>& xs, const CallKwargs& kwargs,
                                                         const Tensor& mask, bool training) {
  const CallArg* r = kwargs.find("reverse");
  if (!r || kwargs.items().size() != 1) return EmbeddingImpl::call_kwargs(xs, kwargs, mask, training);
  if (r->is_tensor() || (r->json != "true" && r->json != "false"))
    throw ValueError("Layer '" + name() + "' (ReversibleEmbedding): the call keyword reverse must be a bool, but received " +
                     (r->is_tensor() ? std::string("a tensor") : r->json));
  if (xs.size() != 1)
    throw ValueError("Layer '" + name() + "' (ReversibleEmbedding) takes one input, but received " + std::to_string(xs.size()));
  if (r->json == "false") return {call(xs[0], training)};
  last_call_reversed_ = true;
  return {reverse(xs[0])};
}

Tensor ReversibleEmbeddingImpl::reverse(const Tensor& x) const {
  if (x.rank() < 1 || x.shape()[-1] != output_dim_)
    throw ValueError("Layer '" + name() + "' (ReversibleEmbedding): a reverse call expects inputs whose last axis is "
                     "output_dim=" + std::to_string(output_dim_) + ", but received shape " + x.shape().to_string());
  if (embeddings_scale_.defined()) return quantized_reverse(x);
  Tensor kernel = ro_.tie_weights ? transpose(kernel_with_lora()) : reverse_embeddings_.value();
  // Like the layer's lookup, a reverse call does not autocast: a float32 input
  // and a float16 table multiply in float32, by Keras's promotion.
  const DType dt = ro_.reverse_dtype ? dtype_from_name(*ro_.reverse_dtype) : ops::keras_result_type(x.dtype(), kernel.dtype());
  Tensor logits = matmul(cast(x, dt), cast(kernel, dt));
  if (ro_.logit_soft_cap) logits = tanh(logits / *ro_.logit_soft_cap) * *ro_.logit_soft_cap;
  return logits;
}

Tensor ReversibleEmbeddingImpl::compute_mask(const Tensor& x, const Tensor& previous_mask) {
  if (last_call_reversed_) return Tensor();
  return EmbeddingImpl::compute_mask(x, previous_mask);
}

Config ReversibleEmbeddingImpl::get_config() const {
  Config c = layer_config(*this);
  write_lora_config(c);
  return c;
}

Config ReversibleEmbeddingImpl::upgrade_entry(const Config& entry) { return entry; }

KILN_REGISTER_LAYER(ReversibleEmbeddingImpl, "ReversibleEmbedding")

}  // namespace kiln::layers
