// Helpers shared by Attention, EinsumDense, MultiHeadAttention and GroupedQueryAttention.
#include "attention_common.h"

#include <algorithm>

#include "kiln/core/error.h"
#include "kiln/nn/layer.h"

#include <nlohmann/json.hpp>

#include "kiln/nn/masking.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/random.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln::layers::detail {

namespace {
Tensor rows(int64_t tq) { return reshape(range(tq, DType::int32), {1, tq, 1}); }
Tensor cols(int64_t tv) { return reshape(range(tv, DType::int32), {1, 1, tv}); }
Tensor and_mask(const Tensor& a, const Tensor& b) { return a.defined() ? logical_and(a, b) : b; }
}  // namespace

Config output_shape_as_list(const Config& e) {
  const Config& c = e["config"];
  if (!c.contains("output_shape") || !c["output_shape"].is_number_integer()) return e;
  Config n = e;
  n["config"]["output_shape"] = Config::array({c["output_shape"]});
  return n;
}

Tensor causal_mask(int64_t tq, int64_t tv) { return greater_equal(rows(tq), cols(tv)); }

Tensor combined_attention_mask(const std::vector<Tensor>& masks, int64_t tq, int64_t tv, bool causal,
                               std::optional<int64_t> sliding_window, const Tensor& attention_mask) {
  Tensor m;
  if (!masks.empty() && masks[0].defined()) m = expand_dims(cast(masks[0], DType::bool_), -1);
  for (std::size_t i = 1; i < masks.size(); ++i)
    if (masks[i].defined()) m = and_mask(m, expand_dims(cast(masks[i], DType::bool_), -2));
  if (causal) m = and_mask(m, causal_mask(tq, tv));
  if (sliding_window) {
    Tensor distance = abs(rows(tq) - cols(tv));
    m = and_mask(m, less(distance, scalar_like(static_cast<double>(*sliding_window), distance)));
  }
  if (attention_mask.defined()) {
    Tensor given = cast(attention_mask, DType::bool_);
    m = m.defined() ? logical_and(given, m) : given;
  }
  return m;
}

Tensor masked_softmax(const Tensor& scores, Tensor mask, const std::vector<int>& axes) {
  auto normalize = [&](const Tensor& s) {
    if (axes.size() == 1) return softmax(s, axes[0]);
    return exp(s - logsumexp(s, Axes(axes), true));
  };
  if (!mask.defined()) return normalize(scores);
  const int expand_axis = -static_cast<int>(axes.size()) * 2 - 1;
  while (mask.rank() < scores.rank()) mask = expand_dims(mask, expand_axis);
  Tensor out = normalize(where(mask, scores, scalar_like(-1e9, scores)));
  return where(mask, out, zeros_like(out));
}

Tensor dropout_weights(const Tensor& w, double rate, std::optional<uint64_t> seed, uint64_t& call) {
  if (rate <= 0) return w;
  std::optional<uint64_t> s;
  if (seed) s = *seed + 0x9E3779B97F4A7C15ull * (call++);
  Tensor kept = cast(random::uniform(w.shape(), 0.0, 1.0, w.dtype(), s) >= rate, w.dtype());
  return w * (kept / (1.0 - rate));
}

MaskStash::MaskStash(std::vector<Tensor> ts) : ts_(std::move(ts)) {
  for (const auto& t : ts_) masks_.push_back(get_keras_mask(t));
  for (const auto& t : ts_) set_keras_mask(t, Tensor());
}

MaskStash::~MaskStash() {
  for (std::size_t i = 0; i < ts_.size(); ++i)
    if (masks_[i].defined()) set_keras_mask(ts_[i], masks_[i]);
}

namespace {
Tensor single_tensor(const Layer& layer, const std::string& key, const CallArg& v) {
  if (!v.is_tensor() || v.tensor_list || v.tensors.size() != 1)
    throw ValueError("Layer '" + layer.name() + "' (" + layer.class_name() + "): the call keyword " + key +
                     " must be one tensor, but received " +
                     (v.is_tensor() ? "a list of " + std::to_string(v.tensors.size()) + " tensors" : v.json));
  return v.tensors[0];
}
}  // namespace

MultiHeadAttentionCall attention_call_from_kwargs(const Layer& layer, std::vector<Tensor>& inputs,
                                                  const CallKwargs& kwargs, CallKwargs& rest, bool training) {
  MultiHeadAttentionCall c;
  c.training = training;
  for (const auto& [key, v] : kwargs.items()) {
    const bool none = !v.is_tensor() && v.json == "null";
    if (key == "value" && !none) inputs.insert(inputs.begin() + std::min<std::size_t>(inputs.size(), 1), single_tensor(layer, key, v));
    else if (key == "key") { if (!none) c.key = single_tensor(layer, key, v); }
    else if (key == "attention_mask") { if (!none) c.attention_mask = single_tensor(layer, key, v); }
    else if (key == "query_mask") { if (!none) c.query_mask = single_tensor(layer, key, v); }
    else if (key == "value_mask") { if (!none) c.value_mask = single_tensor(layer, key, v); }
    else if (key == "key_mask") { if (!none) c.key_mask = single_tensor(layer, key, v); }
    else if (key == "use_causal_mask") c.use_causal_mask = kwargs.flag(key);
    else if (key == "return_attention_scores") c.return_attention_scores = kwargs.flag(key);
    else rest.set(key, v);
  }
  if (inputs.size() < 2)
    throw ValueError("Layer '" + layer.name() + "' (" + layer.class_name() + ") needs a query and a value, but "
                     "received " + std::to_string(inputs.size()) + " input(s)");
  if (inputs.size() > 2 && !c.key.defined()) c.key = inputs[2];
  return c;
}

std::vector<Tensor> attention_input_masks(const Layer& layer, const MaskStash& stash, const MultiHeadAttentionCall& call,
                                          const std::vector<Tensor>& inputs) {
  static const char* names[] = {"query_mask", "value_mask", "key_mask"};
  const Tensor given[] = {call.query_mask, call.value_mask, call.key_mask};
  std::vector<Tensor> masks;
  for (std::size_t i = 0; i < 3; ++i) {
    if (!given[i].defined()) {
      masks.push_back(stash.mask(i));
      continue;
    }
    // Without a key, the key is the value: its steps are the value's.
    const Tensor& input = inputs[std::min(i, inputs.size() - 1)];
    const Shape expected{input.shape()[0], input.shape()[1]};
    if (!(given[i].shape() == expected))
      throw ValueError("Layer '" + layer.name() + "' (" + layer.class_name() + "): the call keyword " + names[i] +
                       " must have shape " + expected.to_string() + " (batch, steps of its input), but received " +
                       given[i].shape().to_string());
    masks.push_back(given[i]);
  }
  return masks;
}

std::vector<Tensor> attention_outputs(const std::pair<Tensor, Tensor>& out, bool return_attention_scores) {
  if (return_attention_scores) return {out.first, out.second};
  return {out.first};
}

}  // namespace kiln::layers::detail
