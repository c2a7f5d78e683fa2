// MultiHeadAttention: the projections and einsum equations Keras builds
// (_build_proj_equation, _build_attention_equation), its mask rules and its
// masked softmax over the attention axes.
#include "kiln/layers/multi_head_attention.h"

#include <algorithm>
#include <cmath>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/einsum.h"
#include "kiln/ops/keras_nn_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "attention_common.h"
#include "config_fields.h"
#include "nested_layers.h"

namespace kiln::layers {

using namespace detail;

namespace {

char letter(int i) { return static_cast<char>('a' + i); }

struct Projection {
  std::string equation, bias_axes;
  int output_rank;
};

/// Input "abc..." (free then bound letters), kernel bound+output, output free+output.
Projection proj_equation(int free_dims, int bound_dims, int output_dims) {
  std::string in, kernel, out, bias;
  int next = 0;
  for (int i = 0; i < free_dims; ++i, ++next) in += letter(next), out += letter(next);
  for (int i = 0; i < bound_dims; ++i, ++next) in += letter(next), kernel += letter(next);
  for (int i = 0; i < output_dims; ++i, ++next) kernel += letter(next), out += letter(next), bias += letter(next);
  return {in + "," + kernel + "->" + out, bias, static_cast<int>(out.size())};
}

/// [None] * (rank - known) + known.
Shape partial_shape(int rank, const std::vector<int64_t>& known) {
  Shape s;
  for (int i = 0; i < rank - static_cast<int>(known.size()); ++i) s.push_back(None);
  for (int64_t d : known) s.push_back(d);
  return s;
}

struct AttentionEquations {
  std::string dot_product, combine;
  int scores_rank;
};

AttentionEquations attention_equations(int rank, const std::vector<int>& attn_axes) {
  auto is_attn = [&](int i) { return std::find(attn_axes.begin(), attn_axes.end(), i) != attn_axes.end(); };
  std::string target, source, product;
  for (int i = 0; i < rank; ++i) target += letter(i);
  int next = rank;
  for (int i = 0; i < rank; ++i) source += (!is_attn(i) || i == rank - 1) ? target[i] : letter(next++);
  for (int i = 0; i < rank; ++i)
    if (!is_attn(i) && i != rank - 1) product += target[i];
  for (int a : attn_axes) product += target[a];
  for (int a : attn_axes) product += source[a];
  return {source + "," + target + "->" + product, product + "," + source + "->" + target,
          static_cast<int>(product.size())};
}

bool same_inner(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int64_t i = 1; i + 1 < a.rank(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace

MultiHeadAttentionImpl::MultiHeadAttentionImpl(int64_t num_heads, int64_t key_dim, MultiHeadAttentionOptions o)
    : Layer(base_options(o)), num_heads_(num_heads), key_dim_(key_dim), o_(std::move(o)) {
  if (num_heads_ <= 0)
    throw ValueError("Received an invalid value for argument `num_heads`, expected a positive integer. Received: "
                     "num_heads=" + std::to_string(num_heads_));
  if (key_dim_ <= 0)
    throw ValueError("Received an invalid value for argument `key_dim`, expected a positive integer. Received: "
                     "key_dim=" + std::to_string(key_dim_));
  if (o_.value_dim && *o_.value_dim <= 0)
    throw ValueError("Received an invalid value for argument `value_dim`, expected a positive integer or `None`. "
                     "Received: value_dim=" + std::to_string(*o_.value_dim));
  if (o_.sliding_window && *o_.sliding_window <= 0)
    throw ValueError("`sliding_window` must be `None` or a positive integer. Received: sliding_window=" +
                     std::to_string(*o_.sliding_window));
  if (!o_.value_dim) o_.value_dim = key_dim_;
  apply_input_shape(*this, o_);
  set_supports_masking(true);
}

void MultiHeadAttentionImpl::build(const std::vector<Shape>& shapes) {
  if (shapes.size() < 2 || shapes.size() > 3)
    throw ValueError("Layer '" + name() + "' (MultiHeadAttention) is called on [query, value] or [query, value, key], "
                     "but received " + std::to_string(shapes.size()) + " inputs");
  const Shape& qs = shapes[0];
  const Shape& vs = shapes[1];
  const Shape& ks = shapes.size() > 2 ? shapes[2] : vs;
  if (!same_inner(vs, ks))
    throw ValueError("All dimensions of `value` and `key`, except the last one, must be equal. Received: value_shape=" +
                     vs.to_string() + " and key_shape=" + ks.to_string());
  const int qr = static_cast<int>(qs.rank()), vr = static_cast<int>(vs.rank()), kr = static_cast<int>(ks.rank());
  const int64_t dv = *o_.value_dim;
  auto proj = [&](const Projection& pr, const std::vector<int64_t>& known, const std::string& name,
                  const std::string& activation = "linear") {
    return attention_projection(o_, dtype_policy(), pr.equation, partial_shape(pr.output_rank - 1, known), pr.bias_axes, name,
                                activation);
  };
  Projection p = proj_equation(qr - 1, 1, 2);
  query_ = proj(p, {num_heads_, key_dim_}, "query");
  query_->build_for(qs);
  p = proj_equation(kr - 1, 1, 2);
  key_ = proj(p, {num_heads_, key_dim_}, "key");
  key_->build_for(ks);
  if (o_.use_gate) {
    p = proj_equation(qr - 1, 1, 2);
    gate_ = proj(p, {num_heads_, dv}, "gate", "sigmoid");
    gate_->build_for(qs);
  }
  p = proj_equation(vr - 1, 1, 2);
  value_ = proj(p, {num_heads_, dv}, "value");
  value_->build_for(vs);
  const int rank = p.output_rank;
  std::vector<int> axes;
  if (!o_.attention_axes) {
    for (int i = 1; i < rank - 2; ++i) axes.push_back(i);
  } else {
    for (int a : *o_.attention_axes) axes.push_back(a >= 0 ? a : (rank - 1) + a);
  }
  o_.attention_axes = axes;
  const AttentionEquations eq = attention_equations(rank, axes);
  dot_product_equation_ = eq.dot_product;
  combine_equation_ = eq.combine;
  norm_axes_.clear();
  for (int i = eq.scores_rank - static_cast<int>(axes.size()); i < eq.scores_rank; ++i) norm_axes_.push_back(i);
  const std::vector<int64_t> out_dims = o_.output_shape ? o_.output_shape->dims() : std::vector<int64_t>{qs[-1]};
  p = proj_equation(qr - 1, 2, static_cast<int>(out_dims.size()));
  output_ = proj(p, out_dims, "attention_output");
  Shape oin = query_->compute_output_shape(qs);
  oin[-1] = dv;
  output_->build_for(oin);
  track_layer(query_, "query_dense");
  track_layer(key_, "key_dense");
  if (gate_) track_layer(gate_, "_gate_dense");  // Keras has no public property for it
  track_layer(value_, "value_dense");
  track_layer(output_, "output_dense");
  for (const auto& l : {query_, key_, gate_, value_, output_})
    if (l) prefix_weight_paths(*l, name());
}

std::pair<Tensor, Tensor> MultiHeadAttentionImpl::attend(const Tensor& query_in, const Tensor& value_in,
                                                         MultiHeadAttentionCall call) {
  const bool has_key = call.key.defined();
  const Tensor key_in = has_key ? call.key : value_in;
  std::vector<Shape> shapes{query_in.shape(), value_in.shape()};
  if (has_key) shapes.push_back(key_in.shape());
  if (!built()) build_for(shapes);
  const std::vector<Tensor> inputs =
      has_key ? std::vector<Tensor>{query_in, value_in, key_in} : std::vector<Tensor>{query_in, value_in};
  MaskStash stash(inputs);
  const Tensor mask = combined_attention_mask(attention_input_masks(*this, stash, call, inputs), query_in.shape()[1],
                                              value_in.shape()[1], call.use_causal_mask, o_.sliding_window,
                                              call.attention_mask);
  Tensor gate;
  if (gate_) gate = (*gate_)(query_in, call.training);
  Tensor q = (*query_)(query_in, call.training);
  const Tensor k = (*key_)(key_in, call.training);
  const Tensor v = (*value_)(value_in, call.training);
  const double scale = 1.0 / std::sqrt(static_cast<double>(key_dim_));
  Tensor out, scores;
  if (o_.dropout <= 0 && !call.return_attention_scores && q.rank() == 4) {
    // Keras's _compute_attention: without dropout or scores to return, ops.dot_product_attention, its mask
    // (B, T, S) as (B, 1, T, S).
    Tensor keep = mask;
    if (keep.defined()) {
      while (keep.rank() < 4) keep = expand_dims(keep, -static_cast<int>(norm_axes_.size()) * 2 - 1);
      if (keep.dtype() != DType::bool_) keep = cast(keep, DType::bool_);
    }
    out = dot_product_attention(q, k, v, {.mask = keep, .scale = scale});
  } else {
    q = q * scalar_like(scale, q);
    scores = masked_softmax(einsum(dot_product_equation_, {k, q}), mask, norm_axes_);
    const Tensor used = call.training ? dropout_weights(scores, o_.dropout, o_.seed, calls_) : scores;
    out = einsum(combine_equation_, {used, v});
  }
  if (gate_) out = out * gate;
  out = (*output_)(out, call.training);
  return {out, call.return_attention_scores ? scores : Tensor()};
}

std::vector<Tensor> MultiHeadAttentionImpl::call(const std::vector<Tensor>& xs, bool training) {
  return {attend(xs[0], xs[1], {.key = xs.size() > 2 ? xs[2] : Tensor(), .training = training}).first};
}

std::vector<Tensor> MultiHeadAttentionImpl::call_masked(const std::vector<Tensor>& xs, const Tensor&, bool training) {
  return call(xs, training);  // attend() reads each input's own mask
}

std::vector<Shape> MultiHeadAttentionImpl::compute_output_shape(const std::vector<Shape>& s) {
  if (s.size() < 2 || s.size() > 3)
    throw ValueError("Layer '" + name() + "' (MultiHeadAttention) is called on [query, value] or [query, value, key], "
                     "but received " + std::to_string(s.size()) + " inputs");
  const Shape& ks = s.size() > 2 ? s[2] : s[1];
  if (!same_inner(s[1], ks))
    throw ValueError("All dimensions of `value` and `key`, except the last one, must be equal. Received: value_shape=" +
                     s[1].to_string() + " and key_shape=" + ks.to_string());
  if (!o_.output_shape) return {s[0]};
  Shape out;
  for (int64_t i = 0; i + 1 < s[0].rank(); ++i) out.push_back(s[0][i]);
  for (int64_t d : *o_.output_shape) out.push_back(d);
  return {out};
}

Config MultiHeadAttentionImpl::get_config() const { return layer_config(*this); }

Config MultiHeadAttentionImpl::upgrade_entry(const Config& e) { return output_shape_as_list(e); }

KILN_REGISTER_LAYER(MultiHeadAttentionImpl, "MultiHeadAttention")

std::vector<Tensor> MultiHeadAttentionImpl::call_kwargs(const std::vector<Tensor>& xs, const CallKwargs& kwargs, const Tensor& mask,
                                        bool training) {
  std::vector<Tensor> inputs = xs;
  CallKwargs rest;
  MultiHeadAttentionCall c = detail::attention_call_from_kwargs(*this, inputs, kwargs, rest, training);
  if (!rest.empty()) return Layer::call_kwargs(xs, rest, mask, training);
  return detail::attention_outputs(attend(inputs[0], inputs[1], c), c.return_attention_scores);
}

}  // namespace kiln::layers
