// GroupedQueryAttention: Keras's fixed equations (rank-3 inputs), the key and
// value heads repeated to the query heads, and MultiHeadAttention's mask rules.
#include "kiln/layers/grouped_query_attention.h"

#include <cmath>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/einsum.h"
#include "kiln/ops/math_ops.h"
#include "attention_common.h"
#include "config_fields.h"
#include "nested_layers.h"

namespace kiln::layers {

using namespace detail;

GroupedQueryAttentionImpl::GroupedQueryAttentionImpl(int64_t head_dim, int64_t num_query_heads,
                                                     int64_t num_key_value_heads, GroupedQueryAttentionOptions o)
    : Layer(base_options(o)),
      head_dim_(head_dim),
      num_query_heads_(num_query_heads),
      num_key_value_heads_(num_key_value_heads),
      o_(std::move(o)) {
  for (auto [what, v] : {std::pair{"head_dim", head_dim_}, std::pair{"num_query_heads", num_query_heads_},
                         std::pair{"num_key_value_heads", num_key_value_heads_}})
    if (v <= 0)
      throw ValueError(std::string("GroupedQueryAttention: `") + what + "` must be a positive integer. Received: " +
                       what + "=" + std::to_string(v));
  if (num_query_heads_ % num_key_value_heads_ != 0)
    throw ValueError("`num_query_heads` must be divisible by `num_key_value_heads`. Received: num_query_heads=" +
                     std::to_string(num_query_heads_) + ", num_key_value_heads=" + std::to_string(num_key_value_heads_));
  if (o_.sliding_window && *o_.sliding_window <= 0)
    throw ValueError("`sliding_window` must be `None` or a positive integer. Received: sliding_window=" +
                     std::to_string(*o_.sliding_window));
  activity_regularizer = o_.activity_regularizer;
  apply_input_shape(*this, o_);
  set_supports_masking(true);
}

void GroupedQueryAttentionImpl::check_shapes(const std::vector<Shape>& s) const {
  if (s.size() < 2 || s.size() > 3)
    throw ValueError("Layer '" + name() + "' (GroupedQueryAttention) is called on [query, value] or [query, value, "
                     "key], but received " + std::to_string(s.size()) + " inputs");
  const Shape& ks = s.size() > 2 ? s[2] : s[1];
  for (const Shape& x : {s[0], s[1], ks})
    if (x.rank() != 3)
      throw ShapeError("Layer '" + name() + "' (GroupedQueryAttention) takes (batch, T, features) inputs, but "
                       "received query " + s[0].to_string() + ", value " + s[1].to_string() + " and key " +
                       ks.to_string());
  if (s[0][-1] != s[1][-1])
    throw ValueError("The last dimension of `query_shape` and `value_shape` must be equal, but are " +
                     std::to_string(s[0][-1]) + ", " + std::to_string(s[1][-1]) + ". Received: query_shape=" +
                     s[0].to_string() + ", value_shape=" + s[1].to_string());
  if (s[1][1] != ks[1])
    throw ValueError("All dimensions of `value` and `key`, except the last one, must be equal. Received: value_shape=" +
                     s[1].to_string() + " and key_shape=" + ks.to_string());
}

void GroupedQueryAttentionImpl::build(const std::vector<Shape>& shapes) {
  check_shapes(shapes);
  const Shape& ks = shapes.size() > 2 ? shapes[2] : shapes[1];
  auto proj = [&](const char* equation, Shape out, const char* bias_axes, const char* name,
                  const char* activation = "linear") {
    return attention_projection(o_, dtype_policy(), equation, std::move(out), bias_axes, name, activation);
  };
  query_ = proj("bqm,muh->bquh", {None, num_query_heads_, head_dim_}, "uh", "query");
  query_->build_for(shapes[0]);
  key_ = proj("bkm,mvh->bkvh", {None, num_key_value_heads_, head_dim_}, "vh", "key");
  key_->build_for(ks);
  if (o_.use_gate) {
    gate_ = proj("bqm,muh->bquh", {None, num_query_heads_, head_dim_}, "uh", "gate", "sigmoid");
    gate_->build_for(shapes[0]);
  }
  value_ = proj("bkm,mvh->bkvh", {None, num_key_value_heads_, head_dim_}, "vh", "value");
  value_->build_for(shapes[1]);
  output_ = proj("bquh,uhm->bqm", {None, shapes[0][-1]}, "m", "attention_output");
  output_->build_for(Shape{None, None, num_query_heads_, head_dim_});
  // Keras saves these under their private attribute names (no public properties).
  track_layer(query_, "_query_dense");
  track_layer(key_, "_key_dense");
  if (gate_) track_layer(gate_, "_gate_dense");
  track_layer(value_, "_value_dense");
  track_layer(output_, "_output_dense");
  for (const auto& l : {query_, key_, gate_, value_, output_})
    if (l) prefix_weight_paths(*l, name());
}

namespace {
/// Each head of (batch, T, heads, dim) repeated `n` times in place, as ops.repeat(x, n, axis=2).
Tensor repeat_heads(const Tensor& x, int64_t n) {
  if (n == 1) return x;
  const Shape s = x.shape();
  Tensor t = broadcast_to(expand_dims(x, 3), Shape{s[0], s[1], s[2], n, s[3]});
  return reshape(t, Shape{s[0], s[1], s[2] * n, s[3]});
}
}  // namespace

std::pair<Tensor, Tensor> GroupedQueryAttentionImpl::attend(const Tensor& query_in, const Tensor& value_in,
                                                            MultiHeadAttentionCall call) {
  const bool has_key = call.key.defined();
  const Tensor key_in = has_key ? call.key : value_in;
  std::vector<Shape> shapes{query_in.shape(), value_in.shape()};
  if (has_key) shapes.push_back(key_in.shape());
  check_shapes(shapes);
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
  const int64_t repeats = num_query_heads_ / num_key_value_heads_;
  const Tensor k = repeat_heads((*key_)(key_in, call.training), repeats);
  const Tensor v = repeat_heads((*value_)(value_in, call.training), repeats);
  q = q * scalar_like(1.0 / std::sqrt(static_cast<double>(head_dim_)), q);
  const Tensor scores = masked_softmax(einsum("bquh,bkuh->buqk", {q, k}), mask, {-1});
  const Tensor used = call.training ? dropout_weights(scores, o_.dropout, o_.seed, calls_) : scores;
  Tensor out = einsum("buqk,bkuh->bquh", {used, v});
  if (gate_) out = out * gate;
  out = (*output_)(out, call.training);
  return {out, call.return_attention_scores ? scores : Tensor()};
}

std::vector<Tensor> GroupedQueryAttentionImpl::call(const std::vector<Tensor>& xs, bool training) {
  return {attend(xs[0], xs[1], {.key = xs.size() > 2 ? xs[2] : Tensor(), .training = training}).first};
}

std::vector<Tensor> GroupedQueryAttentionImpl::call_masked(const std::vector<Tensor>& xs, const Tensor&, bool training) {
  return call(xs, training);  // attend() reads each input's own mask
}

std::vector<Shape> GroupedQueryAttentionImpl::compute_output_shape(const std::vector<Shape>& s) {
  check_shapes(s);
  return {s[0]};
}

Config GroupedQueryAttentionImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(GroupedQueryAttentionImpl, "GroupedQueryAttention", "GroupQueryAttention")

std::vector<Tensor> GroupedQueryAttentionImpl::call_kwargs(const std::vector<Tensor>& xs, const CallKwargs& kwargs, const Tensor& mask,
                                        bool training) {
  std::vector<Tensor> inputs = xs;
  CallKwargs rest;
  MultiHeadAttentionCall c = detail::attention_call_from_kwargs(*this, inputs, kwargs, rest, training);
  if (!rest.empty()) return Layer::call_kwargs(xs, rest, mask, training);
  return detail::attention_outputs(attend(inputs[0], inputs[1], c), c.return_attention_scores);
}

}  // namespace kiln::layers
