// Keyword arguments of layer calls (kiln/nn/call_kwargs.h).
#include "kiln/nn/call_kwargs.h"

#include <algorithm>

namespace kiln {

void CallKwargs::set(const std::string& key, CallArg value) {
  for (auto& [k, v] : items_)
    if (k == key) {
      v = std::move(value);
      return;
    }
  items_.emplace_back(key, std::move(value));
}

bool CallKwargs::erase(const std::string& key) {
  auto it = std::find_if(items_.begin(), items_.end(), [&](const Item& i) { return i.first == key; });
  if (it == items_.end()) return false;
  items_.erase(it);
  return true;
}

const CallArg* CallKwargs::find(const std::string& key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return &v;
  return nullptr;
}

bool CallKwargs::flag(const std::string& key, bool fallback) const {
  const CallArg* a = find(key);
  if (!a || a->is_tensor()) return fallback;
  if (a->json == "true") return true;
  if (a->json == "false") return false;
  return fallback;
}

std::vector<Tensor> CallKwargs::tensors() const {
  std::vector<Tensor> out;
  for (const auto& [k, v] : items_) out.insert(out.end(), v.tensors.begin(), v.tensors.end());
  return out;
}

CallKwargs CallOptions::to_kwargs() const {
  CallKwargs k;
  if (!initial_state.empty()) k.set("initial_state", CallArg::tensor_list_of(initial_state));
  if (key.defined()) k.set("key", CallArg::tensor(key));
  if (attention_mask.defined()) k.set("attention_mask", CallArg::tensor(attention_mask));
  if (mask.defined()) k.set("mask", CallArg::tensor(mask));
  if (query_mask.defined()) k.set("query_mask", CallArg::tensor(query_mask));
  if (value_mask.defined()) k.set("value_mask", CallArg::tensor(value_mask));
  if (key_mask.defined()) k.set("key_mask", CallArg::tensor(key_mask));
  if (use_causal_mask) k.set("use_causal_mask", CallArg::boolean(*use_causal_mask));
  if (return_attention_scores) k.set("return_attention_scores", CallArg::boolean(*return_attention_scores));
  if (training) k.set("training", CallArg::boolean(*training));
  for (const auto& [name, v] : kwargs.items()) k.set(name, v);
  return k;
}

}  // namespace kiln
