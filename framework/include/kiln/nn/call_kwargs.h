#pragma once
// Keyword arguments of a layer call beyond its inputs, as Keras writes them:
// `lstm(x, initial_state=[h, c])`, `mha(q, v, use_causal_mask=True)`,
// `layer(x, mask=m)`. In a functional model a tensor-valued keyword is a graph
// edge like an input; a plain value (a bool, a number) is stored as JSON text.
//
//   namespace L = kiln::layers;
//   L::LSTM lstm(8, {.return_state = true});
//   auto outs = lstm.call_multi({x}, {.initial_state = {h, c}});   // {y, h', c'}
//   kiln::Tensor z = mha({q, q}, {.use_causal_mask = true});
// Layers read the keywords they accept in Layer::call_kwargs(); any other
// keyword is an error naming the layer and the keyword.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/core/tensor.h"

namespace kiln {

/// One keyword's value: tensors, or a plain value as JSON text ("true", "0.5").
struct CallArg {
  std::vector<Tensor> tensors;  ///< The tensors of a tensor-valued keyword.
  /// A list of tensors (initial_state=[h, c]) rather than a single tensor.
  bool tensor_list = false;
  std::string json;  ///< A plain value as JSON text ("true", "0.5"); empty for tensors.
  /// Whether the keyword holds tensors.
  bool is_tensor() const { return !tensors.empty() || tensor_list; }
  /// A single-tensor keyword.
  static CallArg tensor(const Tensor& t) { return {{t}, false, {}}; }
  /// A tensor-list keyword.
  static CallArg tensor_list_of(std::vector<Tensor> ts) { return {std::move(ts), true, {}}; }
  /// A bool keyword.
  static CallArg boolean(bool b) { return {{}, false, b ? "true" : "false"}; }
  /// A plain value, given as JSON text.
  static CallArg value_json(std::string json) { return {{}, false, std::move(json)}; }
};

/// Keyword arguments in the order they were given.
class CallKwargs {
 public:
  /// A keyword and its value.
  using Item = std::pair<std::string, CallArg>;
  /// Sets (or replaces) a keyword.
  void set(const std::string& key, CallArg value);
  /// Removes a keyword; true when it was there.
  bool erase(const std::string& key);
  /// nullptr when the keyword is absent.
  const CallArg* find(const std::string& key) const;
  /// The keyword's bool value (JSON true/false), or `fallback` when absent or null.
  bool flag(const std::string& key, bool fallback = false) const;
  /// Whether no keyword is set.
  bool empty() const { return items_.empty(); }
  /// The keywords, in the order given.
  const std::vector<Item>& items() const { return items_; }
  /// Every tensor of every keyword, in order.
  std::vector<Tensor> tensors() const;

 private:
  std::vector<Item> items_;
};

/// Keras's call keywords as designated initialisers. Only the keywords set
/// (a non-empty tensor list, a defined tensor, an engaged optional) are passed.
struct CallOptions {
  std::vector<Tensor> initial_state;  ///< RNN initial states ([h, c] for an LSTM).
  Tensor mask;  ///< Mask of the (first) input; replaces the mask attached to it.
  Tensor key;  ///< Attention's key tensor (defaults to the value).
  Tensor attention_mask;  ///< Attention mask: which query steps may attend to which key steps.
  /// MultiHeadAttention / GroupedQueryAttention: boolean (batch, T) masks of
  /// the query, value and key steps; each defaults to its input's own mask.
  Tensor query_mask;
  Tensor value_mask;  ///< Mask of the value steps (see query_mask).
  Tensor key_mask;  ///< Mask of the key steps (see query_mask).
  std::optional<bool> use_causal_mask;  ///< Attention: mask future steps (causal self-attention).
  std::optional<bool> return_attention_scores;  ///< Attention: also return the attention scores.
  std::optional<bool> training;  ///< Overrides the call's training flag.
  /// Any other keyword, by its Keras name.
  CallKwargs kwargs;
  /// The keywords set, as CallKwargs.
  CallKwargs to_kwargs() const;
};

}  // namespace kiln
