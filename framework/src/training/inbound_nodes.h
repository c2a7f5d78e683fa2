#pragma once
// A functional config's inbound nodes (Model::from_config): the tensor
// references of Keras 2's and Keras 3's forms, the call keywords, and an
// operation node's arguments with its tensors replaced by slots.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/core/tensor.h"

namespace kiln::detail {

/// [name, node_index, tensor_index] from Keras 2 ([n, i, j, {}]) or Keras 3 (__keras_tensor__) forms.
struct Ref {
  std::string layer;
  int64_t node = 0, tensor = 0;
};

/// A keyword of a node's call: tensor references, or a plain value.
struct KwargSpec {
  std::string key;
  std::vector<Ref> refs;
  bool list = false;
  Config value;
};

/// What an inbound node calls its layer with.
struct ParsedNode {
  std::vector<Ref> refs;  // the positional tensors, in order
  bool list_call = false;
  std::vector<KwargSpec> kwargs;
  std::vector<Ref> all_refs() const {
    std::vector<Ref> out = refs;
    for (const auto& k : kwargs) out.insert(out.end(), k.refs.begin(), k.refs.end());
    return out;
  }
};

/// A reference from either form; throws ValueError for anything else.
Ref parse_ref(const Config& r);
/// The reference as the file wrote it, for error messages.
std::string describe_ref(const Ref& r);
/// The tensor a reference names; a node or tensor index outside what the layer
/// produced is an error naming the calling layer and the valid range.
const Tensor& lookup_ref(const Ref& r, const std::vector<std::vector<Tensor>>& nodes, const std::string& caller);
/// Keras 3's {"class_name": "__keras_tensor__", ...}.
bool is_keras_tensor(const Config& v);
/// A layer's inbound node: its positional tensors and its call keywords.
ParsedNode parse_node(const Config& node);
/// A keras.ops node's args with each tensor replaced by a slot (OperationLayer),
/// and the tensors' references appended to `refs` in slot order.
Config slot_args(const Config& v, std::vector<Ref>& refs);
/// An operation node's keyword arguments, slotted after its positional ones.
Config slot_kwargs(const Config& node, std::vector<Ref>& refs);

}  // namespace kiln::detail
