// Attention and AdditiveAttention: scores, Keras's masking (masked scores
// lowered by 1e9 before the softmax, masked queries zeroed after it), dropout
// on the weights, then weights · value.
#include "kiln/layers/attention.h"

#include "core/number_text.h"
#include "kiln/nn/masking.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "attention_common.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

AttentionImpl::AttentionImpl(AttentionOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  if (o_.score_mode != "dot" && o_.score_mode != "concat")
    throw ValueError("Invalid value for argument score_mode. Expected one of {'dot', 'concat'}. Received: score_mode=" +
                     o_.score_mode);
  if (!(o_.dropout >= 0 && o_.dropout <= 1))
    throw ValueError(class_name() + ": `dropout` must be a float between 0 and 1, but received " +
                     kiln::detail::number_text(o_.dropout));
  apply_input_shape(*this, o_);
  set_supports_masking(true);
}

void AttentionImpl::validate(const std::vector<Shape>& shapes) const {
  if (shapes.size() < 2 || shapes.size() > 3)
    throw ValueError(class_name() + " layer accepts inputs list of length 2 or 3, namely [query, value] or "
                     "[query, value, key]. Received length: " + std::to_string(shapes.size()) + ".");
  const Shape& q = shapes[0];
  const Shape& v = shapes[1];
  const Shape& k = shapes.size() > 2 ? shapes[2] : v;
  if (q.rank() < 3 || v.rank() != q.rank() || k.rank() != q.rank() || q[-1] != k[-1] || v[-2] != k[-2])
    throw ShapeError("Layer '" + name() + "' (" + class_name() +
                     "): expected query (batch, Tq, dim), value (batch, Tv, dim_v) and key (batch, Tv, dim), but "
                     "received query " + q.to_string() + ", value " + v.to_string() + " and key " + k.to_string());
}

void AttentionImpl::build(const std::vector<Shape>& shapes) {
  validate(shapes);
  if (o_.use_scale) scale_ = add_weight("scale", Shape{}, {.initializer = "ones"});
  if (o_.score_mode == "concat") concat_score_weight_ = add_weight("concat_score_weight", Shape{}, {.initializer = "ones"});
}

Tensor AttentionImpl::scores(const Tensor& q, const Tensor& k) {
  if (o_.score_mode == "dot") {
    Tensor s = matmul(q, k, false, true);
    return scale_.defined() ? s * scale_.value() : s;
  }
  Tensor sum_qk = expand_dims(q, -2) + expand_dims(k, -3);  // (batch, Tq, Tv, dim)
  if (scale_.defined()) sum_qk = scale_.value() * sum_qk;
  return concat_score_weight_.value() * sum(tanh(sum_qk), -1);
}

std::pair<Tensor, Tensor> AttentionImpl::attend(const std::vector<Tensor>& inputs, AttentionCallOptions call) {
  std::vector<Shape> shapes;
  for (const auto& x : inputs) shapes.push_back(x.shape());
  validate(shapes);
  if (!built()) build_for(shapes);
  const Tensor q = cast_to_compute(inputs[0], compute_dtype()), v = cast_to_compute(inputs[1], compute_dtype());
  const Tensor k = inputs.size() > 2 ? cast_to_compute(inputs[2], compute_dtype()) : v;
  const Tensor q_mask = get_keras_mask(inputs[0]), v_mask = get_keras_mask(inputs[1]);
  Tensor s = scores(q, k);
  Tensor keep;  // broadcastable to (batch, Tq, Tv)
  if (v_mask.defined()) keep = expand_dims(cast(v_mask, DType::bool_), -2);
  if (call.use_causal_mask) {
    Tensor c = causal_mask(s.shape()[-2], s.shape()[-1]);
    keep = keep.defined() ? logical_and(keep, c) : c;
  }
  if (keep.defined()) s = where(logical_not(keep), s - 1e9, s);
  Tensor weights = softmax(s, -1);
  const Tensor used = call.training ? dropout_weights(weights, o_.dropout, o_.seed, calls_) : weights;
  Tensor out = matmul(used, v);
  if (q_mask.defined()) out = where(expand_dims(cast(q_mask, DType::bool_), -1), out, zeros_like(out));
  return {out, call.return_attention_scores ? weights : Tensor()};
}

std::vector<Tensor> AttentionImpl::call(const std::vector<Tensor>& xs, bool training) {
  return {attend(xs, {.training = training}).first};
}

std::vector<Tensor> AttentionImpl::call_masked(const std::vector<Tensor>& xs, const Tensor&, bool training) {
  return call(xs, training);  // attend() reads each input's own mask
}

std::vector<Shape> AttentionImpl::compute_output_shape(const std::vector<Shape>& s) {
  validate(s);
  Shape out = s[0];
  out[-1] = s[1][-1];
  return {out};
}

Config AttentionImpl::get_config() const { return layer_config(*this); }

AdditiveAttentionImpl::AdditiveAttentionImpl(AdditiveAttentionOptions o)
    : AttentionImpl({.use_scale = o.use_scale, .dropout = o.dropout, .seed = o.seed, .name = o.name, .trainable = o.trainable,
                     .dtype = o.dtype, .input_shape = o.input_shape}),
      a_(std::move(o)) {}

void AdditiveAttentionImpl::build(const std::vector<Shape>& shapes) {
  validate(shapes);
  if (a_.use_scale) scale_ = add_weight("scale", Shape{shapes[0][-1]}, {.initializer = "glorot_uniform"});
}

Tensor AdditiveAttentionImpl::scores(const Tensor& q, const Tensor& k) {
  Tensor t = tanh(expand_dims(q, -2) + expand_dims(k, -3));  // (batch, Tq, Tv, dim)
  return sum(scale_.defined() ? scale_.value() * t : t, -1);
}

Config AdditiveAttentionImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(AttentionImpl, "Attention")
KILN_REGISTER_LAYER(AdditiveAttentionImpl, "AdditiveAttention")

std::vector<Tensor> AttentionImpl::call_kwargs(const std::vector<Tensor>& xs, const CallKwargs& kwargs,
                                               const Tensor& mask, bool training) {
  AttentionCallOptions c{.training = training};
  CallKwargs rest;
  for (const auto& [key, v] : kwargs.items()) {
    if (key == "use_causal_mask") c.use_causal_mask = kwargs.flag(key);
    else if (key == "return_attention_scores") c.return_attention_scores = kwargs.flag(key);
    else rest.set(key, v);
  }
  if (!rest.empty()) return Layer::call_kwargs(xs, rest, mask, training);
  return detail::attention_outputs(attend(xs, c), c.return_attention_scores);
}

}  // namespace kiln::layers
