// Legacy HDF5 files (shared/KERAS_FORMATS.md section 1): tf.keras 2 / Keras 2 /
// Keras 1 full-model .h5 and weights-only .h5. Weights are matched by
// position (or by layer name) and read by the names in @weight_names, never by
// names we build ourselves.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/json_errors.h"
#include "io/atomic_file.h"
#include "io/finite_values.h"
#include "io/hdf5_sandbox.h"
#include "io/saving_impl.h"
#include "kiln/core/error.h"
#include "kiln/nn/layer_assets.h"
#include "kiln/nn/layer_registry.h"

namespace kiln::io {

namespace {

/// Keras's _legacy_weights: the trainable weights, then the non-trainable ones. Equal to
/// weights() except where Keras's layer.weights orders otherwise (SpectralNormalization
/// lists vector_u before its inner layer's bias; its .h5 files do not).
std::vector<Variable> legacy_weights(const Layer& l) {
  std::vector<Variable> ws = l.trainable_weights();
  for (const Variable& v : l.non_trainable_weights()) ws.push_back(v);
  return ws;
}

std::vector<LayerPtr> weighted(const std::vector<LayerPtr>& ls) {
  std::vector<LayerPtr> out;
  for (const auto& l : ls)
    if (!legacy_weights(*l).empty()) out.push_back(l);
  return out;
}

/// tf.keras weight names: the variable path with ":0", made unique within the layer.
std::vector<std::string> weight_names(const Layer& l) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto& v : legacy_weights(l)) {
    std::string base = v.path();
    std::string n = base + ":0";
    for (int k = 1; seen.count(n); ++k) n = base + "_" + std::to_string(k) + ":0";
    seen.insert(n);
    names.push_back(n);
  }
  return names;
}

/// Weights in a Keras 1 or Theano layout, brought into the layer's own by its class's hook.
std::vector<Tensor> preprocess(const Layer& l, std::vector<Tensor> ws, const std::string& version, bool theano) {
  if (ws.empty() || legacy_weights(l).empty()) return ws;
  const LayerClassHooks* hooks = layer_class_hooks(l.class_name());
  if (!hooks || !hooks->upgrade_legacy_weights) return ws;
  return hooks->upgrade_legacy_weights(l, std::move(ws), LegacyWeightsSource{version, theano});
}

struct Assignment {
  Variable var;
  Tensor value;
};

/// Reads one layer's weights from its group (by @weight_names) and checks them.
bool read_layer(const Layer& l, const H5Group& lg, const std::vector<std::string>& names, const std::string& version,
                bool theano, bool skip_mismatch, std::vector<Assignment>& out) {
  const std::vector<Variable> vars = legacy_weights(l);
  const std::string who = lg.where() + ": layer '" + l.name() + "' (" + l.class_name() + ")";
  if (names.size() != vars.size()) {
    std::string msg = who + " expects " + std::to_string(vars.size()) + " weights, but the file has " +
                      std::to_string(names.size());
    if (skip_mismatch) {
      warn(msg + "; skipping it (skip_mismatch=true)");
      return false;
    }
    throw ValueError(msg);
  }
  std::vector<Tensor> ws;
  for (const auto& n : names) {
    if (!lg.is_dataset(n)) throw IOError(who + ": weight '" + n + "' listed in weight_names is missing from the file");
    ws.push_back(lg.read(n));
    require_finite_values(ws.back(), who + ": weight '" + n + "'");
  }
  ws = preprocess(l, std::move(ws), version, theano);
  std::vector<Assignment> mine;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    if (ws[i].shape() != vars[i].shape()) {
      std::string msg = who + ": weight '" + names[i] + "' has shape " + ws[i].shape().to_string() +
                        " in the file but the model's '" + vars[i].path() + "' has shape " +
                        vars[i].shape().to_string();
      if (skip_mismatch) {
        warn(msg + "; skipping it (skip_mismatch=true)");
        return false;
      }
      throw ShapeError(msg);
    }
    mine.push_back({vars[i], ws[i].dtype() == vars[i].dtype() ? ws[i] : ws[i].cast(vars[i].dtype())});
  }
  out.insert(out.end(), mine.begin(), mine.end());
  return true;
}

}  // namespace

void save_legacy_weights(const Model& m, H5Group g) {
  const auto ls = m.layers();
  std::vector<std::string> names;
  for (const auto& l : ls) names.push_back(l->name());
  g.set_attr_strings("layer_names", names);
  g.set_attr("backend", "tensorflow", StrEncoding::ascii);
  g.set_attr("keras_version", kKeras2Version, StrEncoding::ascii);
  std::vector<LayerPtr> sorted = ls;  // Keras creates the groups in name order
  std::sort(sorted.begin(), sorted.end(), [](const LayerPtr& a, const LayerPtr& b) { return a->name() < b->name(); });
  for (const auto& l : sorted) {
    H5Group lg = g.require_group(l->name());
    const auto wn = weight_names(*l);
    lg.set_attr_strings("weight_names", wn);
    const auto vs = legacy_weights(*l);
    for (std::size_t i = 0; i < vs.size(); ++i) lg.write(wn[i], vs[i].read_value_untracked());
  }
}

void load_legacy_weights(Model& m, const H5Group& g, const LegacyLoadOptions& o) {
  auto layer_names = g.attr_strings_opt("layer_names");
  if (!layer_names)
    throw IOError(g.where() + ": not a Keras weights group: no 'layer_names' attribute" +
                  std::string(g.is_group("layers") ? " (it has the Keras 3 layout: use a .weights.h5 path)" : ""));
  // Keras: a missing keras_version means Keras 1 (and may need kernel conversion).
  const std::string version = g.attr_string_opt("keras_version").value_or("1");
  const auto backend = g.attr_string_opt("backend");
  // Keras 1 wrote no backend; its channels-first ("th") files came from Theano,
  // whose kernels are flipped relative to TensorFlow's correlation.
  bool channels_first = o.assume_theano;
  for (const auto& l : m.layers()) {
    const Config c = l->get_config();
    if (c.is_object() && c.value("data_format", "") == "channels_first") channels_first = true;
  }
  const bool theano = backend ? *backend == "theano" : (version == "1" && channels_first);

  std::vector<std::pair<std::string, std::vector<std::string>>> file_layers;
  for (const auto& n : *layer_names) {
    if (!g.is_group(n)) throw IOError(g.where() + ": layer '" + n + "' is listed in layer_names but has no group");
    H5Group lg = g.group(n);
    auto wn = lg.attr_strings_opt("weight_names").value_or(std::vector<std::string>{});
    if (!wn.empty()) file_layers.emplace_back(n, wn);
  }
  std::vector<Assignment> todo;
  if (o.by_name) {
    std::map<std::string, LayerPtr> by;
    for (const auto& l : m.layers()) by[l->name()] = l;
    for (const auto& [name, wn] : file_layers) {
      auto it = by.find(name);
      if (it == by.end()) continue;  // as Keras: file layers the model lacks are ignored
      read_layer(*it->second, g.group(name), wn, version, theano, o.skip_mismatch, todo);
    }
  } else {
    const auto mine = weighted(m.layers());
    if (mine.size() != file_layers.size()) {
      auto list = [](auto begin, auto end, auto name_of) {
        std::string s;
        for (auto it = begin; it != end; ++it) s += (s.empty() ? "" : ", ") + name_of(*it);
        return s;
      };
      throw ValueError(g.where() + ": the file has weights for " + std::to_string(file_layers.size()) + " layers (" +
                       list(file_layers.begin(), file_layers.end(), [](const auto& p) { return p.first; }) +
                       ") but model '" + m.name() + "' has " + std::to_string(mine.size()) + " layers with weights (" +
                       list(mine.begin(), mine.end(), [](const LayerPtr& l) { return l->name(); }) + ")");
    }
    for (std::size_t i = 0; i < mine.size(); ++i)
      read_layer(*mine[i], g.group(file_layers[i].first), file_layers[i].second, version, theano, o.skip_mismatch,
                 todo);
  }
  for (auto& a : todo) a.var.assign(a.value);
}

namespace {

/// A tf.keras 2 (OptimizerV2) slot name as Kiln's (and Keras 3's) optimizer calls it.
std::string keras3_slot(const std::string& optimizer_class, const std::string& slot) {
  if (optimizer_class == "Adamax") return slot == "m" ? "momentum" : slot == "v" ? "norm" : slot;
  static const std::map<std::string, std::string> table{
      {"m", "momentum"},        {"v", "velocity"},         {"vhat", "velocity_hat"},
      {"rms", "velocity"},      {"mg", "average_gradient"}, {"accum_grad", "accumulated_grad"},
      {"accum_var", "accumulated_delta_var"}};
  auto it = table.find(slot);
  return it == table.end() ? slot : it->second;
}

/// tf.keras 2 stores "<Optimizer>/iter:0" and one "<Optimizer>/<layer>/<weight>/<slot>:0"
/// per slot; Keras 3 and Kiln also keep the learning rate, so the counts differ
/// and Keras 3 gives up. The names say which slot of which variable each value
/// is, so Kiln restores them by name. False (nothing assigned) unless every
/// slot of the optimizer is found with its shape.
bool restore_optimizer_v2_slots(Optimizer& opt, const H5Group& og, const std::vector<std::string>& names) {
  std::map<std::string, Variable> by_path;
  for (const auto& v : opt.variables()) by_path[v.path()] = v;
  std::vector<Assignment> todo;
  std::set<std::string> assigned;
  for (const auto& full : names) {
    std::string n = full.size() > 2 && full.ends_with(":0") ? full.substr(0, full.size() - 2) : full;
    const auto first = n.find('/');
    if (first == std::string::npos) return false;
    const std::string rest = n.substr(first + 1);
    std::string path;
    if (rest == "iter") {
      path = opt.name() + "/iteration";
    } else {
      const auto last = rest.rfind('/');
      if (last == std::string::npos) return false;
      std::string var = rest.substr(0, last);
      std::replace(var.begin(), var.end(), '/', '_');
      path = opt.name() + "/" + var + "_" + keras3_slot(opt.class_name(), rest.substr(last + 1));
    }
    auto it = by_path.find(path);
    if (it == by_path.end() || !og.is_dataset(full)) return false;
    Tensor t = og.read(full);
    require_finite_values(t, og.where() + ": optimizer weight '" + full + "'");
    if (t.shape() != it->second.shape()) return false;
    todo.push_back({it->second, t.dtype() == it->second.dtype() ? t : t.cast(it->second.dtype())});
    assigned.insert(path);
  }
  for (const auto& [path, v] : by_path)
    if (!assigned.count(path) && path != opt.name() + "/learning_rate") return false;
  for (auto& a : todo) a.var.assign(a.value);
  return true;
}

}  // namespace

void load_legacy_optimizer(Model& m, const H5Group& root) {
  if (!m.optimizer() || !root.is_group("optimizer_weights")) return;
  H5Group og = root.group("optimizer_weights");
  const auto names = og.attr_strings_opt("weight_names").value_or(std::vector<std::string>{});
  Optimizer& opt = *m.optimizer();
  if (!opt.built()) opt.build(m.trainable_variables());
  const auto vs = opt.variables();
  if (names.size() != vs.size()) {
    if (restore_optimizer_v2_slots(opt, og, names)) return;
    warn(og.where() + ": error in loading the saved optimizer state (" + std::to_string(names.size()) +
         " saved variables, optimizer '" + opt.name() + "' has " + std::to_string(vs.size()) +
         "). As a result, your model is starting with a freshly initialized optimizer.");
    return;
  }
  std::vector<Assignment> todo;
  for (std::size_t i = 0; i < vs.size(); ++i) {
    if (!og.is_dataset(names[i])) {
      warn(og.where() + ": optimizer weight '" + names[i] + "' is missing; the optimizer starts fresh");
      return;
    }
    Tensor t = og.read(names[i]);
    require_finite_values(t, og.where() + ": optimizer weight '" + names[i] + "'");
    if (t.shape() != vs[i].shape()) {
      warn(og.where() + ": optimizer weight '" + names[i] + "' has shape " + t.shape().to_string() + " but '" +
           vs[i].path() + "' has " + vs[i].shape().to_string() + "; the optimizer starts fresh");
      return;
    }
    todo.push_back({vs[i], t.dtype() == vs[i].dtype() ? t : t.cast(vs[i].dtype())});
  }
  for (auto& a : todo) a.var.assign(a.value);
}

namespace {

// Keras's legacy .h5 writes no assets, so an adapted vocabulary is lost without a word there;
// Kiln writes the same file but says so.
void warn_dropped_assets(const Model& m, const std::string& path) {
  for (const LayerStore& s : layer_stores(m)) {
    const auto* assets = dynamic_cast<const LayerAssets*>(s.layer);
    if (!assets || s.path.find("/_lookup_layer") != std::string::npos || assets->save_assets().empty()) continue;
    warn(path + ": layer '" + s.layer->name() + "' (" + s.layer->class_name() + ") keeps its adapted vocabulary in " +
         "asset files, which legacy .h5 files do not hold (nor do Keras's): loaded from this file it has none. Save " +
         "as .keras to keep it.");
  }
}

}  // namespace

void save_legacy_model(const Model& m, const std::string& path, bool include_optimizer) {
  warn_dropped_assets(m, path);
  // Build the configs first: a model that cannot be described fails before any file is touched.
  const std::string model_config = keras2_model_config(m).dump();
  const std::string training_config = m.compiled() ? keras2_training_config(m).dump() : std::string();
  atomic_write(path, [&](const std::string& tmp) {
    H5File f = H5File::create(tmp);
    H5Group root = f.root();
    root.set_attr("keras_version", kKeras2Version, StrEncoding::utf8);
    root.set_attr("backend", "tensorflow", StrEncoding::utf8);
    root.set_attr("model_config", model_config, StrEncoding::ascii);
    if (!training_config.empty()) root.set_attr("training_config", training_config, StrEncoding::ascii);
    save_legacy_weights(m, root.require_group("model_weights"));
    if (include_optimizer && m.optimizer() && m.optimizer()->built()) {
      H5Group og = root.require_group("optimizer_weights");
      const auto vs = m.optimizer()->variables();
      std::vector<std::string> names;
      for (const auto& v : vs) names.push_back(v.path());
      og.set_attr_strings("weight_names", names);
      for (std::size_t i = 0; i < vs.size(); ++i) og.write(names[i], vs[i].read_value_untracked());
    }
    f.close();
  });
}

std::shared_ptr<Model> load_legacy_model(const std::string& path, bool compile, bool trusted) {
  return load_legacy_model(open_h5(path, trusted), compile);
}

std::shared_ptr<Model> load_legacy_model(const H5File& f, bool compile) {
  const std::string path = f.name();
  H5Group root = f.root();
  auto mc = root.attr_string_opt("model_config");
  if (!mc) {
    if (root.has_attr("layer_names") || root.has_attr("layer_names0") || root.is_group("layers"))
      throw IOError(path + ": this is a weights-only file (no model_config): build the model in code, then call "
                           "model.load_weights(\"" + path + "\")");
    throw IOError(path + ": not a Keras model file: the HDF5 file has no 'model_config' attribute");
  }
  Config cfg;
  try {
    cfg = parse_json(*mc);
  } catch (const nlohmann::json::exception& e) {
    throw IOError(path + ": the model_config attribute: " + detail::json_error_text(e));
  }
  if (!root.is_group("model_weights")) throw IOError(path + ": the file has a model_config but no /model_weights group");
  auto model = model_from_file_config(cfg, path, /*weights_follow=*/true);
  LegacyLoadOptions o;
  o.assume_theano = uses_channels_first(cfg);
  load_legacy_weights(*model, root.group("model_weights"), o);
  if (compile) {
    if (auto tc = root.attr_string_opt("training_config")) {
      Config t;
      try {
        t = parse_json(*tc);
      } catch (const nlohmann::json::exception& e) {
        throw IOError(path + ": the training_config attribute: " + detail::json_error_text(e));
      }
      compile_from_config(*model, t, path);
      load_legacy_optimizer(*model, root);
    }
  }
  return model;
}

}  // namespace kiln::io
