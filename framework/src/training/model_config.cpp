// Model configs: Sequential and functional get_config() in Keras's layout,
// and compile arguments as Keras's training_config.
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "kiln/core/error.h"
#include "core/json_int.h"
#include "nn/keras_export_name.h"
#include "kiln/nn/input_layer.h"
#include "kiln/nn/layer_registry.h"
#include "kiln/nn/node.h"
#include "kiln/training/model.h"
#include "kiln/training/sequential.h"

namespace kiln {

namespace {
Config layer_entry(const Layer& l) {
  Config e = Config::object();
  e["module"] = "keras.layers";
  e["class_name"] = detail::keras_export_name(l.class_name());
  e["config"] = l.get_config();
  e["registered_name"] = nullptr;
  return e;
}
}  // namespace

Config Sequential::get_config() const {
  Config c = Config::object();
  c["name"] = name();
  c["trainable"] = trainable();
  c["dtype"] = dtype_name(dtype());
  Config layers = Config::array();
  if (input_layer_) layers.push_back(layer_entry(*input_layer_));
  else if (build_shape_) {
    InputLayerImpl tmp(build_shape_->slice(1));
    Config e = layer_entry(tmp);
    e["config"]["name"] = name() + "_input";
    layers.push_back(e);
  }
  for (const auto& l : layers_) layers.push_back(layer_entry(*l));
  c["layers"] = layers;
  if (build_shape_) {
    Config bs = Config::array();
    for (auto d : build_shape_->dims()) bs.push_back(d < 0 ? Config(nullptr) : Config(d));
    c["build_input_shape"] = bs;
  }
  return c;
}

Config Model::get_config() const {
  if (!is_functional()) return base_config();
  // Keras 3 functional layout: layers with inbound_nodes, input_layers, output_layers.
  Config c = Config::object();
  c["name"] = name();
  c["trainable"] = trainable();
  Config layers = Config::array();
  std::set<const Node*> in_graph;
  for (const auto& n : nodes_) in_graph.insert(n.get());
  for (const auto& l : graph_layers_) {
    Config e = layer_entry(*l);
    e["name"] = l->name();
    Config inbound = Config::array();
    for (const auto& n : l->inbound_nodes()) {
      if (!in_graph.count(n.get()) || n->inputs.empty()) continue;
      Config args = Config::array();
      for (const auto& t : n->inputs) {
        const KerasHistory* h = keras_history(t);
        int node_index = 0;
        auto nodes = h->node->layer->inbound_nodes();
        for (std::size_t k = 0; k < nodes.size(); ++k)
          if (nodes[k] == h->node) node_index = static_cast<int>(k);
        Config shape = Config::array();
        for (auto d : t.shape().dims()) shape.push_back(d < 0 ? Config(nullptr) : Config(d));
        Config kt = {{"class_name", "__keras_tensor__"},
                     {"config",
                      {{"shape", shape},
                       {"dtype", dtype_name(t.dtype())},
                       {"keras_history", Config::array({h->node->layer->name(), node_index, h->index})}}}};
        args.push_back(kt);
      }
      Config node = Config::object();
      node["args"] = n->list_call && !l->positional_inputs() ? Config::array({args}) : args;
      node["kwargs"] = Config::object();
      inbound.push_back(node);
    }
    e["inbound_nodes"] = inbound;
    layers.push_back(e);
  }
  c["layers"] = layers;
  auto refs = [&](const std::vector<Tensor>& ts) {
    Config a = Config::array();
    for (const auto& t : ts) {
      const KerasHistory* h = keras_history(t);
      int node_index = 0;
      auto nodes = h->node->layer->inbound_nodes();
      for (std::size_t k = 0; k < nodes.size(); ++k)
        if (nodes[k] == h->node) node_index = static_cast<int>(k);
      a.push_back(Config::array({h->node->layer->name(), node_index, h->index}));
    }
    return a;
  };
  c["input_layers"] = refs(inputs_);
  c["output_layers"] = refs(outputs_);
  return c;
}

Config Model::compile_config() const {
  Config t = Config::object();
  if (!compiled_) return t;
  auto loss_json = [](const LossArg& a) -> Config {
    if (a.empty()) return nullptr;
    auto l = a.resolve();
    return Config{{"module", "keras.losses"}, {"class_name", l->class_name()}, {"config", l->get_config()},
                  {"registered_name", nullptr}};
  };
  const LossConfig& lc = compile_options_.loss;
  if (!lc.by_name().empty()) {
    Config m = Config::object();
    for (const auto& [k, v] : lc.by_name()) m[k] = loss_json(v);
    t["loss"] = m;
  } else if (!lc.by_position().empty()) {
    Config a = Config::array();
    for (const auto& v : lc.by_position()) a.push_back(loss_json(v));
    t["loss"] = a;
  } else {
    t["loss"] = loss_json(lc.single());
  }
  auto metric_list = [](const std::vector<MetricArg>& ms) {
    Config a = Config::array();
    for (const auto& m : ms) {
      if (m.ptr()) a.push_back(Config{{"module", "keras.metrics"}, {"class_name", m.ptr()->class_name()},
                                      {"config", m.ptr()->get_config()}, {"registered_name", nullptr}});
      else a.push_back(m.name());
    }
    return a;
  };
  auto metrics_json = [&](const MetricsConfig& mc) -> Config {
    if (mc.empty()) return nullptr;
    if (!mc.by_name().empty()) {
      Config m = Config::object();
      for (const auto& [k, v] : mc.by_name()) m[k] = metric_list(v);
      return m;
    }
    return metric_list(mc.all());
  };
  t["metrics"] = metrics_json(compile_options_.metrics);
  t["weighted_metrics"] = metrics_json(compile_options_.weighted_metrics);
  if (!compile_options_.loss_weights.empty()) {
    Config w = Config::object();
    for (const auto& [k, v] : compile_options_.loss_weights) w[k] = v;
    t["loss_weights"] = w;
  } else if (!compile_options_.loss_weights_list.empty()) {
    t["loss_weights"] = compile_options_.loss_weights_list;
  } else {
    t["loss_weights"] = nullptr;
  }
  if (optimizer_)
    t["optimizer_config"] = Config{{"class_name", optimizer_->class_name()}, {"config", optimizer_->get_config()}};
  return t;
}

}  // namespace kiln

namespace kiln {

namespace {
/// [name, node_index, tensor_index] from Keras 2 ([n, i, j, {}]) or Keras 3 (__keras_tensor__) forms.
struct Ref {
  std::string layer;
  int64_t node = 0, tensor = 0;
};
int64_t index_of(const Config& v, const Config& r) {
  if (!v.is_number_integer())
    throw ValueError("Model config: a node reference's node and tensor indices must be integers, but received " +
                     r.dump().substr(0, 200));
  return v.get<int64_t>();
}
Ref parse_ref(const Config& r) {
  const Config* h = &r;
  if (r.is_object() && r.value("class_name", "") == "__keras_tensor__") h = &r.at("config").at("keras_history");
  if (h->is_array() && h->size() >= 3 && (*h)[0].is_string())
    return {(*h)[0].get<std::string>(), index_of((*h)[1], r), index_of((*h)[2], r)};
  throw ValueError("Model config: cannot parse a node reference: " + r.dump().substr(0, 200));
}
/// The reference as the file wrote it, for error messages.
std::string describe_ref(const Ref& r) {
  return "['" + r.layer + "', " + std::to_string(r.node) + ", " + std::to_string(r.tensor) + "]";
}
/// The tensor a reference names; a node or tensor index outside what the layer
/// produced is an error naming the calling layer and the valid range.
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
/// A keyword argument of a Keras node that changes what the layer computes
/// (use_causal_mask=True, initial_state=[...], training=True) cannot be
/// replayed by a Kiln graph node, so loading stops rather than computing
/// something else. Masks travel with the tensors, so "mask" needs nothing.
void check_node_kwargs(const Layer& layer, const Config& node) {
  if (!node.is_object() || !node.contains("kwargs") || !node.at("kwargs").is_object()) return;
  for (const auto& [key, value] : node.at("kwargs").items()) {
    if (key == "mask" || value.is_null() || (value.is_boolean() && !value.get<bool>())) continue;
    throw ValueError("Model config: layer '" + layer.name() + "' (" + layer.class_name() +
                     ") is called with the keyword argument " + key + "=" + value.dump().substr(0, 120) +
                     ", which a Kiln functional model cannot replay; build this model in C++ and load its weights");
  }
}

/// The list of tensor references a node calls its layer with, and whether it was a list call.
std::pair<std::vector<Ref>, bool> parse_node(const Config& node) {
  std::vector<Ref> refs;
  if (node.is_object() && node.contains("args")) {  // Keras 3
    const auto& args = node.at("args");
    if (args.size() == 1 && args[0].is_array()) {
      for (const auto& r : args[0]) refs.push_back(parse_ref(r));
      return {refs, true};
    }
    // Several positional tensors (MultiHeadAttention's query, value) reach the layer as one list.
    for (const auto& r : args) refs.push_back(parse_ref(r));
    return {refs, refs.size() > 1};
  }
  if (node.is_array()) {  // Keras 2: [[name, i, j, kwargs], ...]
    for (const auto& r : node) refs.push_back(parse_ref(r));
    return {refs, refs.size() > 1};
  }
  throw ValueError("Model config: cannot parse inbound node: " + node.dump().substr(0, 200));
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
        auto [refs, list_call] = parse_node(nodes[k]);
        check_node_kwargs(*layer, nodes[k]);
        std::vector<Tensor> args;
        bool ready = true;
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
        if (args.empty()) throw ValueError("Model config: layer '" + layer->name() + "' has an inbound node without inputs");
        std::vector<Tensor> outs = list_call ? (*layer)(args) : std::vector<Tensor>{(*layer)(args[0])};
        outputs[layer->name()].push_back(outs);
        ++k;
        progress = true;
      }
    }
  }
  for (auto& [layer, nodes] : pending) {
    const std::size_t k = done_nodes[layer->name()];
    if (k == nodes.size()) continue;
    for (const auto& r : parse_node(nodes[k]).first) {
      auto it = outputs.find(r.layer);
      if (it == outputs.end())
        throw ValueError("Model config: layer '" + layer->name() + "' has an inbound node entry " + describe_ref(r) +
                         " naming a layer that is never called");
      lookup_ref(r, it->second, layer->name());  // throws: the node index is past the layer's nodes
    }
  }
}

/// The tensors named by input_layers/output_layers: a single [name, i, j] or a list of them.
std::vector<Tensor> resolve_refs(const Config& refs, const NodeOutputs& outputs, const char* key) {
  std::vector<Tensor> ts;
  auto resolve = [&](const Config& x) {
    Ref r = parse_ref(x);
    auto it = outputs.find(r.layer);
    if (it == outputs.end())
      throw ValueError(std::string("Model config: ") + key + " names layer '" + r.layer + "', which was never reached");
    ts.push_back(lookup_ref(r, it->second, key));
  };
  if (refs.is_array() && refs.size() == 3 && refs[0].is_string()) resolve(refs);
  else if (refs.is_array()) for (const auto& x : refs) resolve(x);
  else throw ValueError(std::string("Model config: ") + key + " must be a list, but received " + refs.dump().substr(0, 200));
  return ts;
}

}  // namespace

std::shared_ptr<Model> Model::from_config(const Config& full) {
  const std::string cls = full.value("class_name", "");
  const Config& c = full.at("config");
  LayerOptions lo;
  if (c.is_object() && c.contains("name") && c["name"].is_string()) lo.name = c["name"].get<std::string>();
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
  return std::make_shared<Model>(resolve_refs(c.at("input_layers"), outputs, "input_layers"),
                                 resolve_refs(c.at("output_layers"), outputs, "output_layers"), lo);
}

}  // namespace kiln
