// A functional config's inbound nodes (inbound_nodes.h).
#include "training/inbound_nodes.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "kiln/core/error.h"
#include "kiln/nn/operation_layer.h"

namespace kiln::detail {

namespace {
int64_t index_of(const Config& v, const Config& r) {
  if (!v.is_number_integer())
    throw ValueError("Model config: a node reference's node and tensor indices must be integers, but received " +
                     r.dump().substr(0, 200));
  return v.get<int64_t>();
}
}  // namespace

Ref parse_ref(const Config& r) {
  const Config* h = &r;
  if (r.is_object() && r.value("class_name", "") == "__keras_tensor__") h = &r.at("config").at("keras_history");
  if (h->is_array() && h->size() >= 3 && (*h)[0].is_string())
    return {(*h)[0].get<std::string>(), index_of((*h)[1], r), index_of((*h)[2], r)};
  throw ValueError("Model config: cannot parse a node reference: " + r.dump().substr(0, 200));
}
std::string describe_ref(const Ref& r) {
  return "['" + r.layer + "', " + std::to_string(r.node) + ", " + std::to_string(r.tensor) + "]";
}
const Tensor& lookup_ref(const Ref& r, const std::vector<std::vector<Tensor>>& nodes, const std::string& caller) {
  const std::string where = "Model config: layer '" + caller + "' has an inbound node entry " + describe_ref(r);
  if (r.node < 0 || r.node >= static_cast<int64_t>(nodes.size()))
    throw ValueError(where + " whose node index is out of range: layer '" + r.layer + "' has " +
                     std::to_string(nodes.size()) + " node(s), valid indices are 0.." +
                     std::to_string(static_cast<int64_t>(nodes.size()) - 1));
  const auto& outs = nodes[static_cast<std::size_t>(r.node)];
  if (r.tensor < 0 || r.tensor >= static_cast<int64_t>(outs.size()))
    throw ValueError(where + " whose tensor index is out of range: node " + std::to_string(r.node) + " of layer '" +
                     r.layer + "' has " + std::to_string(outs.size()) + " output(s), valid indices are 0.." +
                     std::to_string(static_cast<int64_t>(outs.size()) - 1));
  return outs[static_cast<std::size_t>(r.tensor)];
}

bool is_keras_tensor(const Config& v) {
  return v.is_object() && v.value("class_name", "") == "__keras_tensor__";
}

namespace {
/// Keras 2 wrote a tensor in a node's kwargs as [layer, node, tensor].
bool is_keras2_ref(const Config& v) {
  return v.is_array() && v.size() == 3 && v[0].is_string() && v[1].is_number_integer() && v[2].is_number_integer();
}

KwargSpec parse_kwarg(const std::string& key, const Config& v, bool keras2) {
  auto is_ref = [&](const Config& x) { return is_keras_tensor(x) || (keras2 && is_keras2_ref(x)); };
  KwargSpec k{key, {}, false, nullptr};
  if (is_ref(v)) {
    k.refs.push_back(parse_ref(v));
  } else if (v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), is_ref)) {
    for (const auto& x : v) k.refs.push_back(parse_ref(x));
    k.list = true;
  } else {
    if (v.dump().find("__keras_tensor__") != std::string::npos)
      throw ValueError("Model config: the call keyword " + key + " holds tensors in a structure Kiln cannot replay "
                       "(a tensor or a flat list of tensors is expected): " + v.dump().substr(0, 200));
    k.value = v;
  }
  return k;
}

}  // namespace

ParsedNode parse_node(const Config& node) {
  ParsedNode p;
  if (node.is_object() && node.contains("args")) {  // Keras 3
    const auto& args = node.at("args");
    if (args.size() == 1 && args[0].is_array()) {
      for (const auto& r : args[0]) p.refs.push_back(parse_ref(r));
      p.list_call = true;
    } else {
      // Several positional tensors (MultiHeadAttention's query, value) reach the layer as one list.
      for (const auto& r : args) p.refs.push_back(parse_ref(r));
      p.list_call = p.refs.size() > 1;
    }
    if (node.contains("kwargs") && node["kwargs"].is_object())
      for (const auto& [key, v] : node["kwargs"].items()) p.kwargs.push_back(parse_kwarg(key, v, false));
    return p;
  }
  if (node.is_array()) {  // Keras 2: [[name, i, j, kwargs], ...]
    for (const auto& r : node) {
      p.refs.push_back(parse_ref(r));
      if (r.is_array() && r.size() > 3 && r[3].is_object())
        for (const auto& item : r[3].items()) {
          const std::string& key = item.key();  // not a structured binding: clang 14 cannot capture those
          if (std::none_of(p.kwargs.begin(), p.kwargs.end(), [&](const KwargSpec& k) { return k.key == key; }))
            p.kwargs.push_back(parse_kwarg(key, item.value(), true));
        }
    }
    p.list_call = p.refs.size() > 1;
    return p;
  }
  throw ValueError("Model config: cannot parse inbound node: " + node.dump().substr(0, 200));
}

/// A keras.ops node's args with each tensor replaced by a slot (OperationLayer),
/// and the tensors' references in slot order.
Config slot_args(const Config& v, std::vector<Ref>& refs) {
  if (is_keras_tensor(v)) {
    refs.push_back(parse_ref(v));
    return {{OperationLayer::kTensorSlot, refs.size() - 1}};
  }
  if (v.is_array()) {
    Config out = Config::array();
    for (const auto& e : v) out.push_back(slot_args(e, refs));
    return out;
  }
  if (v.is_object()) {
    Config out = Config::object();
    for (const auto& [key, e] : v.items()) out[key] = slot_args(e, refs);
    return out;
  }
  return v;
}

/// An operation node's keyword arguments, slotted after its positional ones.
Config slot_kwargs(const Config& node, std::vector<Ref>& refs) {
  return node.contains("kwargs") && node["kwargs"].is_object() ? slot_args(node["kwargs"], refs) : Config::object();
}

}  // namespace kiln::detail
