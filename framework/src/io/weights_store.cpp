// Keras 3's object-graph weights layout (keras/src/saving/saving_lib.py
// _save_state / _load_state, shared/KERAS_FORMATS.md section 2.2):
//   /vars                        @name = model name (the model's own variables)
//   /layers/<snake(Class)>[_k]/vars/<i>   @name = layer name
//   /layers/<...>/layers/...     nested models (and layers with sublayers)
//   /<attribute>/vars/<i>        a subclassed model's sublayers, as Keras saves them
//                                (read when the attribute is the sublayer's name)
//   /optimizer/vars/<i>          @name = optimizer name
//   /optimizer/inner_optimizer/vars/<i>   a LossScaleOptimizer's inner optimizer (also in /optimizer/vars)
// Paths come from class names counted per class in model.layers order, never
// from layer names, so files move between Kiln and Keras by structure.
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "io/finite_values.h"
#include "io/quantized_entries.h"
#include "io/saving_impl.h"
#include "kiln/core/error.h"
#include "kiln/core/registry.h"
#include "kiln/nn/stored_variables.h"

namespace kiln::io {

std::vector<Variable> keras_own_variables(const Layer& l) {
  std::vector<Variable> out;
  for (auto& s : stored_variables_of(l)) out.push_back(s.variable);
  return out;
}

namespace {

/// The saveable children of a layer, visited under "<path>/layers".
std::vector<LayerPtr> children(const Layer& l) {
  if (auto m = dynamic_cast<const Model*>(&l)) return m->layers();
  return l.sublayers();
}

std::string join(const std::string& a, const std::string& b) { return a.empty() ? b : a + "/" + b; }

/// The dataset name of a layer's i-th stored entry.
std::string entry_key(const StoredVariable& v, std::size_t i) { return v.key.empty() ? std::to_string(i) : v.key; }

/// Names children as Keras's _save_container_state does: snake_case class
/// name, then _1, _2, ... for later layers of the same class.
std::vector<std::pair<LayerPtr, std::string>> container_names(const std::vector<LayerPtr>& ls) {
  std::map<std::string, int> used;
  std::vector<std::pair<LayerPtr, std::string>> out;
  for (const auto& l : ls) {
    std::string n = to_snake_case(l->class_name());
    auto it = used.find(n);
    if (it != used.end()) {
      ++it->second;
      n += "_" + std::to_string(it->second);
    } else {
      used[n] = 0;
    }
    out.emplace_back(l, n);
  }
  return out;
}

/// Children under "<path>/layers/<name>", or "<path>/<attribute>" for a
/// sublayer Keras keeps in an attribute (an RNN's cell, Bidirectional's
/// forward_layer), as Keras's _save_state walks them.
std::vector<std::pair<LayerPtr, std::string>> child_paths(const Layer& l, const std::string& path,
                                                          const std::string& container) {
  // An attribute ending in '/' names a list of layers (StackedRNNCells's "cells/").
  std::map<std::string, std::vector<LayerPtr>> lists;
  std::vector<std::pair<LayerPtr, std::string>> out;
  for (const auto& c : children(l)) {
    const std::string attr = dynamic_cast<const Model*>(&l) ? std::string() : l.sublayer_attribute(*c);
    if (attr.empty() || attr.back() == '/') lists[attr].push_back(c);
    else out.emplace_back(c, join(path, attr));
  }
  for (const auto& [attr, ls] : lists) {
    const std::string where = attr.empty() ? container : join(path, attr.substr(0, attr.size() - 1));
    for (const auto& [child, name] : container_names(ls)) out.emplace_back(child, where + "/" + name);
  }
  return out;
}

void save_layer(const Layer& l, H5Group& root, const std::string& path, std::set<const Layer*>& visited) {
  if (!visited.insert(&l).second) return;
  H5Group g = root.require_group(join(path, "vars"));
  g.set_attr("name", l.name(), StrEncoding::utf8);
  const auto vs = stored_variables_of(l);
  for (std::size_t i = 0; i < vs.size(); ++i)
    g.write(entry_key(vs[i], i), vs[i].saved ? vs[i].saved() : vs[i].variable.read_value_untracked());
  for (const auto& [child, p] : child_paths(l, path, join(path, "layers"))) save_layer(*child, root, p, visited);
}

struct WeightAssignment {
  Variable var;
  Tensor value;
};

/// What a load assigns, and the layers to tell afterwards.
struct LoadPlan {
  std::vector<WeightAssignment> assignments;
  std::vector<const CustomVariableStore*> loaded;
};

std::string shape_str(const Shape& s) { return s.to_string(); }

/// Reads <path>/vars into `out` after checking count and shapes.
/// Returns false (after a warning) on a mismatch when skip_mismatch.
bool read_layer_vars(const Layer& l, const H5Group& root, const std::string& path, bool skip_mismatch,
                     LoadPlan& out) {
  const auto stored = stored_variables_of(l);
  std::vector<Variable> vs;
  for (const auto& e : stored) vs.push_back(e.variable);
  const std::string gpath = join(path, "vars");
  std::vector<std::string> keys;
  H5Group g;
  if (root.is_group(gpath)) {
    g = root.group(gpath);
    for (const auto& k : g.keys())
      if (g.is_dataset(k)) keys.push_back(k);
  }
  const std::string who = root.file() + ":/" + gpath + ": layer '" + l.name() + "' (" + l.class_name() + ")";
  if (keys.size() != vs.size()) {
    std::string msg = who + " expects " + std::to_string(vs.size()) + " variables, but the file has " +
                      std::to_string(keys.size()) +
                      (keys.empty() && !root.is_group(gpath) ? " (no such group in the file)" : "");
    if (skip_mismatch) {
      warn(msg + "; skipping this layer (skip_mismatch=true)");
      return false;
    }
    throw ValueError(msg);
  }
  std::vector<WeightAssignment> mine;
  for (std::size_t i = 0; i < vs.size(); ++i) {
    const std::string key = entry_key(stored[i], i);
    if (!g.is_dataset(key)) throw ValueError(who + ": variable " + key + " is missing from the file");
    Tensor t = g.read(key);
    require_finite_values(t, who + ": variable " + key + " ('" + vs[i].name() + "')");
    if (t.shape() != vs[i].shape()) {
      std::string msg = who + ": variable " + key + " ('" + vs[i].name() + "') has shape " + shape_str(vs[i].shape()) +
                        " in the model but " + shape_str(t.shape()) + " in the file";
      if (skip_mismatch) {
        warn(msg + "; skipping this layer (skip_mismatch=true)");
        return false;
      }
      throw ShapeError(msg);
    }
    mine.push_back({vs[i], t.dtype() == vs[i].dtype() ? t : t.cast(vs[i].dtype())});
  }
  out.assignments.insert(out.assignments.end(), mine.begin(), mine.end());
  if (auto custom = dynamic_cast<const CustomVariableStore*>(&l); custom && !vs.empty())
    out.loaded.push_back(custom);
  return true;
}

void load_layer(const Layer& l, const H5Group& root, const std::string& path, bool skip_mismatch,
                std::set<const Layer*>& visited, LoadPlan& out) {
  if (!visited.insert(&l).second) return;
  read_layer_vars(l, root, path, skip_mismatch, out);
  const auto kids = children(l);
  if (kids.empty()) return;
  // tf.keras 2.13's keras_v3 files spell the container "_layer_checkpoint_dependencies".
  std::string container = join(path, "layers");
  if (!root.is_group(container) && root.is_group(join(path, "_layer_checkpoint_dependencies")))
    container = join(path, "_layer_checkpoint_dependencies");
  for (const auto& [child, p] : child_paths(l, path, container)) {
    std::string child_path = p;
    // Keras saves a subclassed model's sublayers under the attributes that hold
    // them ("<path>/head"); Kiln has no attribute names, so a sublayer named
    // after its attribute is found by its name.
    if (!root.is_group(child_path) && root.is_group(join(join(path, child->name()), "vars")))
      child_path = join(path, child->name());
    // A layer that builds its own sublayers (MultiHeadAttention's projections) leaves their
    // policies out of its config; its quantized sublayers are known by their kernels.
    if (!dynamic_cast<const Model*>(&l) && root.is_group(join(child_path, "vars")))
      quantize_as_stored(*child, root.group(join(child_path, "vars")));
    load_layer(*child, root, child_path, skip_mismatch, visited, out);
  }
}

void collect_stores(const Layer& l, const std::string& path, std::set<const Layer*>& visited,
                    std::vector<LayerStore>& out) {
  if (!visited.insert(&l).second) return;
  out.push_back({&l, path});
  for (const auto& [child, p] : child_paths(l, path, join(path, "layers"))) collect_stores(*child, p, visited, out);
}

}  // namespace

std::vector<LayerStore> layer_stores(const Layer& root) {
  std::set<const Layer*> visited;
  std::vector<LayerStore> out;
  collect_stores(root, "", visited, out);
  return out;
}

void save_layer_state(const Layer& l, H5Group root) {
  std::set<const Layer*> visited;
  save_layer(l, root, "", visited);
}

void save_state(const Model& m, H5Group root, bool include_optimizer) {
  std::set<const Layer*> visited;
  save_layer(m, root, "", visited);
  if (include_optimizer && m.optimizer()) {
    const auto& opt = *m.optimizer();
    H5Group g = root.require_group("optimizer/vars");
    g.set_attr("name", opt.name(), StrEncoding::utf8);
    const auto vs = opt.variables();
    for (std::size_t i = 0; i < vs.size(); ++i) g.write(std::to_string(i), vs[i].read_value_untracked());
    // A wrapper's inner optimizer is saved again under its attribute, as Keras saves it (and reads it back).
    std::string path = "optimizer";
    for (const Optimizer* inner = opt.inner_optimizer(); inner; inner = inner->inner_optimizer()) {
      path += "/inner_optimizer";
      H5Group ig = root.require_group(path + "/vars");
      const auto ivs = inner->variables();
      for (std::size_t i = 0; i < ivs.size(); ++i) ig.write(std::to_string(i), ivs[i].read_value_untracked());
    }
  }
}

void load_state(Model& m, const H5Group& root, bool load_optimizer, bool skip_mismatch) {
  if (!root.is_group("layers") && !root.is_group("vars") && !root.is_group("_layer_checkpoint_dependencies"))
    throw IOError(root.file() + ": not a Keras 3 weights file (no /layers or /vars group)" +
                  std::string(root.has_attr("layer_names") || root.is_group("model_weights")
                                  ? "; it has the legacy layout (layer_names): load it from a .h5 path"
                                  : ""));
  std::set<const Layer*> visited;
  LoadPlan todo;
  load_layer(m, root, "", skip_mismatch, visited, todo);
  // Everything was read and checked before the first assign: a failed load
  // leaves the model as it was.
  for (auto& a : todo.assignments) a.var.assign(a.value);
  for (auto* l : todo.loaded) l->after_load_own_variables();

  if (!load_optimizer || !m.optimizer() || !root.is_group("optimizer/vars")) return;
  Optimizer& opt = *m.optimizer();
  if (!opt.built()) opt.build(m.trainable_variables());
  H5Group g = root.group("optimizer/vars");
  std::vector<std::string> keys;
  for (const auto& k : g.keys())
    if (g.is_dataset(k)) keys.push_back(k);
  const auto vs = opt.variables();
  // An optimizer saved before its first step holds only iteration and
  // learning_rate: restore those and keep the fresh slots.
  const bool unbuilt_save = keys.size() == 2 && vs.size() > 2 && g.is_dataset("0") && g.is_dataset("1") &&
                            g.dataset_shape("1").rank() == 0;
  if (keys.size() != vs.size() && !unbuilt_save) {
    warn(root.file() + ": skipping variable loading for optimizer '" + opt.name() + "', because it has " +
         std::to_string(vs.size()) + " variables whereas the saved optimizer has " + std::to_string(keys.size()) +
         " variables");
    return;
  }
  std::vector<WeightAssignment> opt_todo;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string key = std::to_string(i);
    if (!g.is_dataset(key)) {
      warn(root.file() + ": optimizer variable " + key + " is missing; the optimizer starts fresh");
      return;
    }
    Tensor t = g.read(key);
    require_finite_values(t, root.file() + ": optimizer '" + opt.name() + "' variable " + key + " ('" + vs[i].name() + "')");
    if (t.shape() != vs[i].shape()) {
      warn(root.file() + ": optimizer '" + opt.name() + "' variable " + key + " ('" + vs[i].name() + "') has shape " +
           shape_str(vs[i].shape()) + " but the file has " + shape_str(t.shape()) + "; the optimizer starts fresh");
      return;
    }
    opt_todo.push_back({vs[i], t.dtype() == vs[i].dtype() ? t : t.cast(vs[i].dtype())});
  }
  for (auto& a : opt_todo) a.var.assign(a.value);
}

}  // namespace kiln::io
