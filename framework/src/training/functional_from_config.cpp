// Model::from_config: Sequential layer lists and Keras functional graphs
// (layers, keras.ops operation nodes, and call keywords) rebuilt by calling
// each layer on the tensors its inbound nodes name.
#include <algorithm>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/file_load_scope.h"
#include "core/json_int.h"
#include "training/inbound_nodes.h"
#include "kiln/core/error.h"
#include "nn/config_io.h"
#include "kiln/nn/input_layer.h"
#include "kiln/nn/layer_registry.h"
#include "kiln/nn/node.h"
#include "kiln/nn/operation_layer.h"
#include "kiln/training/model.h"
#include "kiln/training/sequential.h"

namespace kiln {

namespace {
using detail::describe_ref;
using detail::is_keras_tensor;
using detail::lookup_ref;
using detail::parse_ref;
using detail::parse_node;
using detail::ParsedNode;
using detail::Ref;
using detail::slot_args;
using detail::slot_kwargs;

std::string string_or_empty(const Config& e, const char* key) {
  return e.is_object() && e.contains(key) && e[key].is_string() ? e[key].get<std::string>() : std::string();
}

/// A keras.ops node: its module says so. Keras 3's legacy .h5 configs drop the
/// module; there an op class counts when no layer has that class name
/// (NotEqual, Any) or when its config lacks the "trainable" every layer config
/// has (the op Multiply beside the layer Multiply).
bool is_operation_entry(const Config& e) {
  const std::string module = string_or_empty(e, "module");
  if (module.rfind("keras.src.ops", 0) == 0 || module.rfind("keras.ops", 0) == 0) return true;
  const std::string cls = string_or_empty(e, "class_name");
  if (e.contains("module") || !OperationLayer::supports(cls)) return false;
  const bool layer_config = e.contains("config") && e["config"].is_object() && e["config"].contains("trainable");
  return !is_layer_class_registered(cls) || !layer_config;
}

/// The file being loaded, for error messages ("" outside a load).
std::string source_suffix() {
  const auto* scope = detail::FileLoadScope::current();
  return scope ? " (in " + scope->source() + ")" : "";
}
}  // namespace

namespace {
// A model nested in another model's config is a layer entry; the layer
// registry finds the model classes through these factories.
[[maybe_unused]] const bool kModelClassesRegistered = [] {
  for (const char* cls : {"Sequential", "Functional", "Model"})
    register_layer_class(cls, [cls](const Config& config) -> LayerPtr {
      return Model::from_config({{"class_name", cls}, {"config", config}});
    });
  return true;
}();
}  // namespace

namespace {

using NodeOutputs = std::map<std::string, std::vector<std::vector<Tensor>>>;  // layer -> node -> tensors

/// A functional config's InputLayer entry, recreated with Input().
Tensor input_from_config(const Config& e) {
  const Config& ic = e.at("config");
  std::vector<int64_t> dims;
  const Config& bs = ic.contains("batch_shape") ? ic["batch_shape"] : ic.at("batch_input_shape");
  for (std::size_t i = 1; i < bs.size(); ++i)
    dims.push_back(bs[i].is_null() ? None : ::kiln::detail::json_int(bs[i], "Model config: InputLayer batch_shape", 0));
  InputOptions io;
  io.name = ic.value("name", "");
  if (ic.contains("dtype") && ic["dtype"].is_string()) io.dtype = dtype_from_name(ic["dtype"].get<std::string>());
  return Input(Shape(dims), io);
}

/// Calls layers on their inbound nodes as soon as their inputs exist (the
/// config is usually already in order), until no more can be called. A node
/// whose inputs never appear is an error, as is any index out of range.
void call_pending_layers(const std::vector<std::pair<LayerPtr, Config>>& pending, NodeOutputs& outputs) {
  std::map<std::string, std::size_t> done_nodes;
  bool progress = true;
  while (progress) {
    progress = false;
    for (auto& [layer, nodes] : pending) {
      std::size_t& k = done_nodes[layer->name()];
      while (k < nodes.size()) {
        const bool op = dynamic_cast<const OperationLayer*>(layer.get()) != nullptr;
        ParsedNode node = op ? ParsedNode{} : parse_node(nodes[k]);
        if (op) {
          slot_args(nodes[k].at("args"), node.refs);
          slot_kwargs(nodes[k], node.refs);
          node.list_call = true;
        }
        std::vector<Tensor> args;
        bool ready = true;
        const std::vector<Ref> refs = node.all_refs();
        for (const auto& r : refs) {
          auto it = outputs.find(r.layer);
          // A later node of a layer not yet called is still pending; a negative one never will be.
          if (r.node >= 0 && (it == outputs.end() || r.node >= static_cast<int64_t>(it->second.size()))) {
            ready = false;
            break;
          }
          if (it == outputs.end()) throw ValueError("Model config: unknown layer in " + describe_ref(r));
          args.push_back(lookup_ref(r, it->second, layer->name()));
        }
        if (!ready) break;
        if (node.refs.empty()) throw ValueError("Model config: layer '" + layer->name() + "' has an inbound node without inputs");
        std::vector<Tensor> outs;
        if (node.kwargs.empty()) {
          args.resize(node.refs.size());
          // Every output, so that later nodes can name a state or a score by tensor index.
          outs = layer->call_with_kwargs(args, node.list_call, CallKwargs{});
        } else {
          CallKwargs kw;
          std::size_t next = node.refs.size();
          for (const auto& spec : node.kwargs) {
            CallArg a;
            if (spec.refs.empty()) {
              a.json = spec.value.dump();
            } else {
              a.tensor_list = spec.list;
              for (std::size_t i = 0; i < spec.refs.size(); ++i) a.tensors.push_back(args[next++]);
            }
            kw.set(spec.key, a);
          }
          args.resize(node.refs.size());
          outs = layer->call_with_kwargs(args, node.list_call, kw);
        }
        outputs[layer->name()].push_back(outs);
        ++k;
        progress = true;
      }
    }
  }
  for (auto& [layer, nodes] : pending) {
    const std::size_t k = done_nodes[layer->name()];
    if (k == nodes.size()) continue;
    std::vector<Ref> refs;
    if (dynamic_cast<const OperationLayer*>(layer.get())) {
      slot_args(nodes[k].at("args"), refs);
      slot_kwargs(nodes[k], refs);
    }
    else refs = parse_node(nodes[k]).all_refs();
    for (const auto& r : refs) {
      auto it = outputs.find(r.layer);
      if (it == outputs.end())
        throw ValueError("Model config: layer '" + layer->name() + "' has an inbound node entry " + describe_ref(r) +
                         " naming a layer that is never called");
      lookup_ref(r, it->second, layer->name());  // throws: the node index is past the layer's nodes
    }
  }
}

bool is_leaf_ref(const Config& x) { return x.is_array() && x.size() == 3 && x[0].is_string(); }

/// The tensors named by input_layers/output_layers, flattened as Keras flattens
/// them: a single [name, i, j]; a list in order; a dict by sorted key, as optree
/// does (nlohmann's objects iterate sorted). The result's `structure` is the
/// nesting with each leaf replaced by its flat index (a bare 0 for a single
/// tensor, which Keras writes unwrapped), or null for a flat list, which is how
/// Kiln writes inputs and outputs anyway.
/// Keras counts a nested functional model's construction as its node 0 here
/// (functional.py, get_config's node_reindexing_map), though not in inbound
/// nodes, and takes one off again when it reads them.
struct FlatRefs {
  std::vector<Tensor> tensors;
  Config structure;
};

FlatRefs resolve_refs(const Config& refs, const NodeOutputs& outputs, const char* key,
                      const std::map<std::string, LayerPtr>& by_name) {
  FlatRefs out;
  auto resolve = [&](const Config& x) {
    Ref r = parse_ref(x);
    auto layer = by_name.find(r.layer);
    if (layer != by_name.end()) {
      const auto* m = dynamic_cast<const Model*>(layer->second.get());
      if (m && m->is_functional() && r.node > 0) r.node -= 1;
    }
    auto it = outputs.find(r.layer);
    if (it == outputs.end())
      throw ValueError(std::string("Model config: ") + key + " names layer '" + r.layer + "', which was never reached");
    out.tensors.push_back(lookup_ref(r, it->second, key));
    return Config(out.tensors.size() - 1);
  };
  std::function<Config(const Config&, int)> walk = [&](const Config& x, int depth) -> Config {
    if (depth > 32) throw ValueError(std::string("Model config: ") + key + " is nested more than 32 deep");
    if (is_leaf_ref(x)) return resolve(x);
    Config s = x.is_object() ? Config::object() : Config::array();
    if (x.is_object())
      for (const auto& [k, v] : x.items()) s[k] = walk(v, depth + 1);
    else if (x.is_array())
      for (const auto& v : x) s.push_back(walk(v, depth + 1));
    else
      throw ValueError(std::string("Model config: ") + key + " must be a [layer, node, tensor] reference, a list or "
                       "a dict of them, but received " + x.dump().substr(0, 200));
    return s;
  };
  Config s = walk(refs, 0);
  const bool flat_list =
      refs.is_array() && !is_leaf_ref(refs) && std::all_of(refs.begin(), refs.end(), [](const Config& x) { return is_leaf_ref(x); });
  out.structure = flat_list ? Config(nullptr) : s;
  return out;
}

}  // namespace

std::shared_ptr<Model> Model::from_config(const Config& full) {
  const std::string cls = full.value("class_name", "");
  const Config& c = full.at("config");
  LayerOptions lo;
  if (c.is_object() && c.contains("name") && c["name"].is_string()) lo.name = c["name"].get<std::string>();
  // The model's own policy decides, as in Keras, whether compile() wraps its optimizer for loss scaling.
  if (c.is_object() && c.contains("dtype")) lo.dtype = config_io::ConfigReader(cls, c).dtype_policy();
  if (cls == "Sequential") {
    auto model = std::make_shared<Sequential>(std::vector<LayerPtr>{}, lo);
    const Config& layers = c.is_array() ? c : c.at("layers");  // Keras 2.0 stored a bare list
    for (const auto& e : layers) model->add(layer_from_config(e));
    if (!model->built() && c.is_object() && c.contains("build_input_shape") && c["build_input_shape"].is_array()) {
      std::vector<int64_t> d;
      for (const auto& v : c["build_input_shape"])
        d.push_back(v.is_null() ? None : ::kiln::detail::json_int(v, "Model config: build_input_shape", 0));
      model->build_from(Shape(d));
    }
    return model;
  }
  if (cls != "Functional" && cls != "Model")
    throw NotFoundError("Model::from_config: unknown model class '" + cls +
                        "'; register subclassed models with kiln::register_layer_class");
  std::map<std::string, LayerPtr> by_name;
  std::vector<std::pair<LayerPtr, Config>> pending;
  NodeOutputs outputs;
  std::set<std::string> seen_names;
  for (const auto& e : c.at("layers")) {
    LayerPtr l;
    if (e.at("class_name") == "InputLayer") {
      Tensor t = input_from_config(e);
      l = keras_history(t)->node->layer;
      outputs[l->name()].push_back({t});
    } else if (is_operation_entry(e)) {
      const std::string cls = string_or_empty(e, "class_name");
      const std::string op_name = string_or_empty(e, "name").empty() ? cls : string_or_empty(e, "name");
      const Config nodes = e.contains("inbound_nodes") ? e["inbound_nodes"] : Config::array();
      if (!nodes.is_array() || nodes.size() != 1 || !nodes[0].is_object() || !nodes[0].contains("args"))
        throw ValueError("Model config: operation '" + op_name + "' (" + cls + ") must have exactly one "
                         "inbound node with args, but has " + nodes.dump().substr(0, 200) + source_suffix());
      std::vector<Ref> refs;
      const Config op_config = e.contains("config") && e["config"].is_object() ? e["config"] : Config::object();
      try {
        const Config args = slot_args(nodes[0]["args"], refs);
        l = std::make_shared<OperationLayer>(cls, op_config, args, slot_kwargs(nodes[0], refs));
      } catch (const NotFoundError& err) {
        throw NotFoundError("Model config: operation '" + op_name + "' (" + string_or_empty(e, "module") + "." + cls +
                            ") cannot be loaded" + source_suffix() + ": " + err.what());
      }
      pending.emplace_back(l, nodes);
    } else {
      l = layer_from_config(e);
      pending.emplace_back(l, e.contains("inbound_nodes") ? e["inbound_nodes"] : Config::array());
    }
    // Nodes are matched by layer name, so two layers of one name would mix their calls.
    if (!seen_names.insert(l->name()).second)
      throw ValueError("Model config: the name \"" + l->name() + "\" is used 2 times in the model. All layer names "
                       "should be unique.");
    by_name[e.contains("name") ? e["name"].get<std::string>() : l->name()] = l;
  }
  call_pending_layers(pending, outputs);
  FlatRefs in = resolve_refs(c.at("input_layers"), outputs, "input_layers", by_name);
  FlatRefs out = resolve_refs(c.at("output_layers"), outputs, "output_layers", by_name);
  auto model = std::make_shared<Model>(in.tensors, out.tensors, lo);
  if (!in.structure.is_null()) model->inputs_structure_ = in.structure.dump();
  if (!out.structure.is_null()) model->outputs_structure_ = out.structure.dump();
  return model;
}

}  // namespace kiln
