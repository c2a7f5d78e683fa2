// Model and compile configs in the forms Keras writes (see
// shared/KERAS_FORMATS.md section 3): Keras 3 serialize_keras_object objects for
// .keras and tf.keras 2 configs for legacy .h5.
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "nn/keras_export_name.h"
#include "io/saving_impl.h"
#include "kiln/core/error.h"
#include "kiln/nn/layer_registry.h"
#include "kiln/training/loss.h"
#include "kiln/training/metric.h"
#include "kiln/training/optimizer.h"
#include "kiln/core/registry.h"
#include "kiln/training/sequential.h"
#include "kiln/core/tensor.h"
#include "kiln/ops/array_ops.h"

namespace kiln::io {

void warn(const std::string& msg) { std::cerr << "WARNING: " << msg << std::endl; }

namespace {

Config shape_json(const Shape& s) {
  Config a = Config::array();
  for (auto d : s.dims()) a.push_back(d < 0 ? Config(nullptr) : Config(d));
  return a;
}

Config dtype_policy(const Config& name) {
  const DTypePolicy p(name.get<std::string>());
  if (const auto block = p.int4_block_size())
    return {{"module", "keras.dtype_policies"},
            {"class_name", "Int4DTypePolicy"},
            {"config", {{"mode", "int4/" + std::to_string(*block)}, {"source_name", p.source_name()}}},
            {"registered_name", nullptr}};
  if (!p.quantization_mode().empty())
    return {{"module", "keras.dtype_policies"},
            {"class_name", "QuantizedDTypePolicy"},
            {"config", {{"mode", p.quantization_mode()}, {"source_name", p.source_name()}}},
            {"registered_name", nullptr}};
  return {{"module", "keras"},
          {"class_name", "DTypePolicy"},
          {"config", {{"name", name}}},
          {"registered_name", nullptr}};
}

Config build_config_of(const Layer& l) {
  if (l.build_input_shapes()) {
    Config a = Config::array();
    for (const auto& s : *l.build_input_shapes()) a.push_back(shape_json(s));
    return {{"input_shape", a}};
  }
  if (l.build_input_shape()) return {{"input_shape", shape_json(*l.build_input_shape())}};
  return nullptr;
}

/// Layer config dtype "float32" -> DTypePolicy object (InputLayer keeps the string).
/// A keras.ops node's entry: it is written as the op wrote it, and takes no
/// place in model.layers(), which the other entries follow in order.
bool is_operation_entry(const Config& e) {
  return e.is_object() && e.contains("module") && e["module"].is_string() &&
         e["module"].get<std::string>().rfind("keras.src.ops", 0) == 0;
}

void to_keras3_layer_entries(Config& layers, const std::vector<LayerPtr>& ls);
std::vector<LayerPtr> config_layers(const Model& m);

void to_keras3_layer_entry(Config& e, const Layer* layer) {
  if (!e.is_object() || is_operation_entry(e)) return;
  const std::string cls = e.value("class_name", "");
  const LayerClassHooks* hooks = layer_class_hooks(cls);
  if (e.contains("config") && e["config"].is_object() && cls != "InputLayer") {
    Config& c = e["config"];
    if (c.contains("dtype") && c["dtype"].is_string()) c["dtype"] = dtype_policy(c["dtype"]);
    if (hooks && hooks->to_keras3_config) hooks->to_keras3_config(c);
    if (c.contains("layers") && c["layers"].is_array()) {  // nested Sequential / Functional
      auto model = layer ? dynamic_cast<const Model*>(layer) : nullptr;
      to_keras3_layer_entries(c["layers"], model ? config_layers(*model) : std::vector<LayerPtr>{});
    }
  }
  // Keras 3 records build_config for layers with weights, models, and classes
  // whose Python class defines build() (Flatten, Reshape, the merge layers).
  if (cls == "Functional" && e.value("module", "") == "keras.src.models.functional") {
    e["build_config"] = {{"input_shape", nullptr}};  // what Keras writes for a nested functional model
  } else if (layer && cls != "InputLayer" && layer->built() &&
      (!layer->own_variables().empty() || (hooks && hooks->records_build_config) ||
       dynamic_cast<const Model*>(layer))) {
    Config bc = build_config_of(*layer);
    if (!bc.is_null()) e["build_config"] = bc;
  }
}

void to_keras3_layer_entries(Config& layers, const std::vector<LayerPtr>& ls) {
  std::size_t k = 0;
  for (auto& e : layers) {
    if (is_operation_entry(e)) continue;
    to_keras3_layer_entry(e, k < ls.size() ? ls[k].get() : nullptr);
    ++k;
  }
}

/// The name a subclassed model's class is registered under: Keras's
/// register_keras_serializable registers "package>Name" and writes that as the
/// registered_name, which Keras then needs to find the class again.
std::string registered_name_of(const std::string& cls) {
  for (const auto& n : registered_layer_classes())
    if (n.size() > cls.size() + 1 && n.ends_with(">" + cls)) return n;
  return cls;
}

/// The layers a model's config lists, in its order: a Sequential's input layer
/// first, or a null for the InputLayer entry it writes from its build shape.
std::vector<LayerPtr> config_layers(const Model& m) {
  std::vector<LayerPtr> out = m.layers();
  if (auto seq = dynamic_cast<const Sequential*>(&m)) {
    if (seq->input_layer()) out.insert(out.begin(), seq->input_layer());
    else if (m.build_input_shape()) out.insert(out.begin(), nullptr);  // synthesised InputLayer entry
  }
  return out;
}

Config compile_config_keras3(const Model& m) {
  Config t = m.compile_config();
  Config c = Config::object();
  c["optimizer"] = m.optimizer() ? optimizers::serialize(*m.optimizer()) : Config(nullptr);
  // A loss given by name is written by name, as Keras does ("categorical_crossentropy").
  const LossConfig& lc = m.compile_options().loss;
  if (lc.by_name().empty() && lc.by_position().empty() && !lc.single().name().empty())
    c["loss"] = lc.single().name();
  else
    c["loss"] = t.value("loss", Config(nullptr));
  c["loss_weights"] = t.value("loss_weights", Config(nullptr));
  c["metrics"] = t.value("metrics", Config(nullptr));
  c["weighted_metrics"] = t.value("weighted_metrics", Config(nullptr));
  c["run_eagerly"] = m.compile_options().run_eagerly;
  c["steps_per_execution"] = m.compile_options().steps_per_execution;
  c["jit_compile"] = false;
  return c;
}

}  // namespace

Config keras3_model_object(const Model& m) {
  Config obj = Config::object();
  const bool seq = dynamic_cast<const Sequential*>(&m) != nullptr;
  const std::string cls = m.class_name();
  if (seq) {
    obj["module"] = "keras";
    obj["class_name"] = "Sequential";
  } else if (m.is_functional() && (cls == "Functional" || cls == "Model")) {
    obj["module"] = "keras.src.models.functional";
    obj["class_name"] = "Functional";
  } else {
    obj["module"] = "kiln";
    obj["class_name"] = cls;
  }
  Config config = m.get_config();
  if (config.contains("dtype") && config["dtype"].is_string()) config["dtype"] = dtype_policy(config["dtype"]);
  if (config.contains("layers") && config["layers"].is_array()) {
    to_keras3_layer_entries(config["layers"], config_layers(m));
  }
  obj["config"] = config;
  if (seq) obj["registered_name"] = nullptr;
  else if (obj["class_name"] == "Functional") obj["registered_name"] = "Functional";
  else obj["registered_name"] = registered_name_of(cls);
  if (seq) {
    obj["build_config"] = m.build_input_shape() ? Config{{"input_shape", shape_json(*m.build_input_shape())}}
                                                : Config(nullptr);
    if (obj["build_config"].is_null()) obj.erase("build_config");
  } else if (obj["class_name"] == "Functional") {
    obj["build_config"] = {{"input_shape", nullptr}};
  } else {
    Config bc = build_config_of(m);
    if (!bc.is_null()) obj["build_config"] = bc;
  }
  if (m.compiled()) obj["compile_config"] = compile_config_keras3(m);
  return obj;
}

// ------------------------------------------------------------------ tf.keras 2 configs

namespace {

// Keys that only Keras 3 layers know; tf.keras 2 would reject them as kwargs.
const std::set<std::string>& keras3_only_keys() {
  static const std::set<std::string> s{"lora_rank", "lora_alpha", "quantization_config", "optional"};
  return s;
}

Config strip_pipeline_config(const Config& c);

/// Keras 3 nested objects -> tf.keras 2: drop module/registered_name/build_config,
/// DTypePolicy -> its name. A layer inside a layer's config (Bidirectional's
/// layer, RNN's cell) keeps its module: Keras 3 finds the class by it when it
/// reads a .h5, and tf.keras 2 ignores the key.
Config strip_keras3(const Config& v, bool layer_entry = false) {
  if (v.is_array()) {
    Config a = Config::array();
    for (const auto& x : v) a.push_back(strip_keras3(x, layer_entry));
    return a;
  }
  if (!v.is_object()) return v;
  if (v.value("class_name", "") == "DTypePolicy" && v.contains("config") && v["config"].contains("name"))
    return v["config"]["name"];
  Config o = Config::object();
  const bool pipeline = v.value("class_name", "") == "Pipeline";
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string& k = it.key();
    if (layer_entry && (k == "module" || k == "registered_name")) o[k] = it.value();
    if (k == "module" || k == "registered_name" || k == "build_config" || k == "shared_object_id") continue;
    const bool nested_layer = k == "layer" || k == "backward_layer" || k == "cell" || k == "cells";
    o[k] = pipeline && k == "config" ? strip_pipeline_config(it.value()) : strip_keras3(it.value(), nested_layer);
  }
  return o;
}

/// A Pipeline's config: Keras 3 serializes its layers whole even in a .h5
/// (serialize_keras_object), and finds their classes by module when it reads them.
Config strip_pipeline_config(const Config& c) {
  Config o = strip_keras3(c);
  if (c.is_object() && c.contains("layers")) o["layers"] = c["layers"];
  return o;
}

Config keras2_layer_entry(const Config& e3, bool first_layer, const std::optional<Shape>& input_shape) {
  Config e = Config::object();
  e["class_name"] = e3.at("class_name");
  Config c = e3["class_name"] == "Pipeline" ? strip_pipeline_config(e3.at("config")) : strip_keras3(e3.at("config"));
  for (const auto& k : keras3_only_keys()) c.erase(k);
  if (e3["class_name"] == "InputLayer") {
    if (c.contains("batch_shape")) {
      c["batch_input_shape"] = c["batch_shape"];
      c.erase("batch_shape");
    }
    if (!c.contains("ragged")) c["ragged"] = false;
    // tf.keras 2 InputLayer keys: batch_input_shape, dtype, sparse, ragged, name.
    Config ordered = Config::object();
    for (const char* k : {"batch_input_shape", "dtype", "sparse", "ragged", "name"})
      if (c.contains(k)) ordered[k] = c[k];
    c = ordered;
  } else if (first_layer && input_shape && !c.contains("batch_input_shape")) {
    c["batch_input_shape"] = shape_json(*input_shape);
  }
  e["config"] = c;
  return e;
}

/// Keras 3 inbound node dicts -> tf.keras 2 lists [[name, node, tensor, {}], ...].
Config keras2_nodes(const Config& nodes, bool operation) {
  Config out = Config::array();
  for (const auto& n : nodes) {
    // Call keywords and keras.ops arguments have no tf.keras 2 form; Keras 3
    // reads the node dict in .h5 files, and its tensors in kwargs only there.
    const bool keywords = n.is_object() && n.contains("kwargs") && n["kwargs"].is_object() && !n["kwargs"].empty();
    if (operation || keywords) {
      out.push_back(n);
      continue;
    }
    // Several positional tensors (MultiHeadAttention's query, value): tf.keras 2
    // wrote the later ones as kwargs, which Keras 3's legacy loader passes on
    // untranslated, while it reads the Keras 3 node form in .h5 files too.
    const bool positional = n.is_object() && n.contains("args") && n["args"].is_array() && n["args"].size() > 1 &&
                            !n["args"][0].is_array();
    if (n.is_array() || positional) {
      out.push_back(n);
      continue;
    }
    Config entries = Config::array();
    std::function<void(const Config&)> add = [&](const Config& a) {
      if (a.is_array()) {
        for (const auto& x : a) add(x);
      } else if (a.is_object() && a.value("class_name", "") == "__keras_tensor__") {
        const auto& h = a["config"]["keras_history"];
        entries.push_back(Config::array({h[0], h[1], h[2], Config::object()}));
      }
    };
    add(n.value("args", Config::array()));
    out.push_back(entries);
  }
  return out;
}

Config keras2_optimizer_config(const Optimizer& o) {
  Config c = o.get_config();
  // tf.keras 2's optimizers reject Keras-3-only arguments: keep only set ones.
  for (const char* k : {"weight_decay", "clipnorm", "global_clipnorm", "clipvalue", "ema_overwrite_frequency",
                        "loss_scale_factor", "gradient_accumulation_steps"})
    if (c.contains(k) && c[k].is_null()) c.erase(k);
  if (c.contains("use_ema") && c["use_ema"] == false) {
    c.erase("use_ema");
    c.erase("ema_momentum");
  }
  // tf.keras 2 (OptimizerV2) configs always carry `decay`; Keras 3 accepts and ignores it.
  if (!c.contains("decay")) c["decay"] = 0.0;
  return {{"class_name", o.class_name()}, {"config", c}};
}

}  // namespace

Config keras2_model_config(const Model& m) {
  Config c3 = m.get_config();
  Config out = Config::object();
  const auto* seq = dynamic_cast<const Sequential*>(&m);
  if (seq) {
    Config layers = Config::array();
    const Config& l3 = c3.at("layers");
    for (std::size_t i = 0; i < l3.size(); ++i) {
      const bool first_real = (i == 0 && l3[i]["class_name"] != "InputLayer") ||
                              (i == 1 && l3[0]["class_name"] == "InputLayer");
      layers.push_back(keras2_layer_entry(l3[i], first_real, m.build_input_shape()));
    }
    out["class_name"] = "Sequential";
    out["config"] = {{"name", c3.value("name", m.name())}, {"layers", layers}};
    return out;
  }
  if (!m.is_functional())
    throw ValueError("Model '" + m.name() + "' (" + m.class_name() +
                     "): a subclassed model cannot be written to a legacy .h5 model file (tf.keras has no config "
                     "for it); save it as .keras or use save_weights");
  Config layers = Config::array();
  for (const auto& l : c3.at("layers")) {
    Config e = keras2_layer_entry(l, false, std::nullopt);
    Config ordered = Config::object();
    ordered["name"] = l.value("name", e["config"].value("name", ""));
    ordered["class_name"] = ::kiln::detail::keras_class_name(e["class_name"].get<std::string>());
    ordered["config"] = e["config"];
    // keras.ops nodes keep their module: their class names (Add, Multiply) are also layer names.
    const bool operation = l.value("module", "").rfind("keras.src.ops", 0) == 0;
    if (operation) {
      ordered["module"] = l["module"];
      ordered["registered_name"] = l.value("registered_name", Config(nullptr));
    }
    ordered["inbound_nodes"] = keras2_nodes(l.value("inbound_nodes", Config::array()), operation);
    layers.push_back(ordered);
  }
  out["class_name"] = "Functional";
  out["config"] = {{"name", c3.value("name", m.name())},
                   {"layers", layers},
                   {"input_layers", c3.at("input_layers")},
                   {"output_layers", c3.at("output_layers")}};
  return out;
}

Config keras2_training_config(const Model& m) {
  Config t = strip_keras3(m.compile_config());
  const LossConfig& lc = m.compile_options().loss;
  if (lc.by_name().empty() && lc.by_position().empty() && !lc.single().name().empty()) t["loss"] = lc.single().name();
  Config out = Config::object();
  for (const char* k : {"loss", "metrics", "weighted_metrics", "loss_weights"}) out[k] = t.value(k, Config(nullptr));
  if (m.optimizer()) out["optimizer_config"] = keras2_optimizer_config(*m.optimizer());
  return out;
}

}  // namespace kiln::io
