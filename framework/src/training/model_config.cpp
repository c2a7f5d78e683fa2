// Model configs: Sequential and functional get_config() in Keras's layout,
// and compile arguments as Keras's training_config.
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "kiln/core/error.h"
#include "core/json_int.h"
#include "nn/keras_export_name.h"
#include "kiln/nn/input_layer.h"
#include "kiln/nn/layer_registry.h"
#include "kiln/nn/node.h"
#include "kiln/nn/operation_layer.h"
#include "kiln/training/model.h"
#include "kiln/training/sequential.h"

namespace kiln {

namespace {
Config layer_entry(const Layer& l) {
  Config e = Config::object();
  // keras.ops nodes name their module and class, as Keras's serialize_keras_object does.
  const auto* op = dynamic_cast<const OperationLayer*>(&l);
  const LayerClassHooks* hooks = op ? nullptr : layer_class_hooks(l.class_name());
  const bool own_module = hooks && !hooks->keras_module.empty();
  // Nested models are written as Keras writes them: Keras 3 cannot find "keras.layers.Functional".
  const bool functional = dynamic_cast<const Model*>(&l) && l.class_name() == "Functional";
  const bool sequential = dynamic_cast<const Sequential*>(&l) != nullptr;
  e["module"] = op           ? op->keras_module()
                : functional ? "keras.src.models.functional"
                : sequential ? "keras"
                : own_module ? hooks->keras_module
                             : "keras.layers";
  e["class_name"] = op ? l.class_name() : detail::keras_export_name(l.class_name());
  e["config"] = l.get_config();
  e["registered_name"] = op || own_module || functional ? Config(l.class_name()) : Config(nullptr);
  return e;
}

/// The nodes of the model being written; node indices count only these, as Keras's do.
using OwnNodes = std::set<const Node*>;

/// The position of a tensor's node among its layer's nodes that belong to the model.
int own_node_index(const KerasHistory& h, const OwnNodes& own) {
  int index = 0;
  for (const auto& n : h.node->layer->inbound_nodes()) {
    if (n == h.node) break;
    if (own.count(n.get())) ++index;
  }
  return index;
}

bool is_functional_model(const Layer& l) {
  const auto* m = dynamic_cast<const Model*>(&l);
  return m && m->is_functional();
}

/// [layer name, node index, tensor index] of a symbolic tensor. In input_layers
/// and output_layers Keras counts a nested functional model's construction as
/// its node 0 (functional.py, node_reindexing_map); in inbound nodes it does not.
Config history_of(const Tensor& t, const OwnNodes& own, bool model_io = false) {
  const KerasHistory* h = keras_history(t);
  const int offset = model_io && is_functional_model(*h->node->layer) ? 1 : 0;
  return Config::array({h->node->layer->name(), own_node_index(*h, own) + offset, h->index});
}

/// A symbolic tensor as Keras 3 serializes it in a node's args and kwargs.
Config keras_tensor_ref(const Tensor& t, const OwnNodes& own) {
  Config shape = Config::array();
  for (auto d : t.shape().dims()) shape.push_back(d < 0 ? Config(nullptr) : Config(d));
  return {{"class_name", "__keras_tensor__"},
          {"config", {{"shape", shape}, {"dtype", dtype_name(t.dtype())}, {"keras_history", history_of(t, own)}}}};
}

/// One inbound node: {"args": [...], "kwargs": {...}}.
Config node_entry(const Layer& l, const Node& n, const OwnNodes& own) {
  std::vector<Config> refs;
  for (const auto& t : n.inputs) refs.push_back(keras_tensor_ref(t, own));
  Config node = Config::object();
  if (const auto* op = dynamic_cast<const OperationLayer*>(&l)) {
    node["args"] = op->args_with(refs);
  } else {
    Config args = Config::array();
    for (auto& r : refs) args.push_back(r);
    node["args"] = n.list_call && !l.positional_inputs() ? Config::array({args}) : args;
  }
  Config kwargs = Config::object();
  for (const auto& [key, v] : n.kwargs.items()) {
    if (!v.is_tensor()) {
      kwargs[key] = Config::parse(v.json);
    } else if (v.tensor_list) {
      Config a = Config::array();
      for (const auto& t : v.tensors) a.push_back(keras_tensor_ref(t, own));
      kwargs[key] = a;
    } else {
      kwargs[key] = keras_tensor_ref(v.tensors.at(0), own);
    }
  }
  if (const auto* op = dynamic_cast<const OperationLayer*>(&l)) kwargs.update(op->kwargs_with(refs));
  node["kwargs"] = kwargs;
  return node;
}
}  // namespace

Config Sequential::get_config() const {
  Config c = Config::object();
  c["name"] = name();
  c["trainable"] = trainable();
  c["dtype"] = dtype_policy().name();
  Config layers = Config::array();
  if (input_layer_) layers.push_back(layer_entry(*input_layer_));
  else if (build_shape_) {
    InputLayerImpl tmp(build_shape_->slice(1));
    Config e = layer_entry(tmp);
    e["config"]["name"] = built_input_name_.empty() ? name() + "_input" : built_input_name_;
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
  OwnNodes in_graph;
  for (const auto& n : nodes_) in_graph.insert(n.get());
  for (const auto& l : graph_layers_) {
    Config e = layer_entry(*l);
    e["name"] = l->name();
    Config inbound = Config::array();
    for (const auto& n : l->inbound_nodes())
      if (in_graph.count(n.get()) && !n->inputs.empty()) inbound.push_back(node_entry(*l, *n, in_graph));
    e["inbound_nodes"] = inbound;
    layers.push_back(e);
  }
  c["layers"] = layers;
  auto refs = [&](const std::vector<Tensor>& ts) {
    Config a = Config::array();
    for (const auto& t : ts) a.push_back(history_of(t, in_graph, true));
    return a;
  };
  // A loaded dict or nested list is written back with its leaves in flat order.
  std::function<Config(const Config&, const Config&)> nest = [&](const Config& s, const Config& flat) -> Config {
    if (s.is_number_integer()) return flat.at(s.get<std::size_t>());
    Config r = s.is_object() ? Config::object() : Config::array();
    for (auto it = s.begin(); it != s.end(); ++it)
      if (s.is_object()) r[it.key()] = nest(it.value(), flat);
      else r.push_back(nest(it.value(), flat));
    return r;
  };
  auto structured = [&](const std::vector<Tensor>& ts, const std::string& structure) {
    return structure.empty() ? refs(ts) : nest(Config::parse(structure), refs(ts));
  };
  c["input_layers"] = structured(inputs_, inputs_structure_);
  c["output_layers"] = structured(outputs_, outputs_structure_);
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

