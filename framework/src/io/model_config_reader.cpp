// Reading a model config from a file: each layer entry upgraded by its class's
// hook (Keras 1 keys, see shared/KERAS_FORMATS.md section 3), then building the model.
#include <nlohmann/json.hpp>

#include "core/json_errors.h"
#include "io/saving_impl.h"
#include "kiln/core/error.h"
#include "core/file_load_scope.h"
#include "core/json_int.h"
#include "kiln/nn/layer_registry.h"
#include "kiln/training/loss.h"
#include "kiln/training/metric.h"
#include "kiln/training/optimizer.h"
#include "kiln/core/registry.h"
#include "kiln/training/sequential.h"
#include "kiln/core/tensor.h"
#include "kiln/ops/array_ops.h"

namespace kiln::io {

namespace {

/// A layer entry from an older Keras in today's form, by its class's upgrade hook.
Config normalise_layer(const Config& e) {
  Config out = e;
  if (e.is_object() && e.contains("config") && e["config"].is_object() && e.contains("class_name") &&
      e["class_name"].is_string()) {
    const LayerClassHooks* hooks = layer_class_hooks(e["class_name"].get<std::string>());
    if (hooks && hooks->upgrade_entry) out = hooks->upgrade_entry(e);
  }
  if (out.is_object() && out.contains("config") && out["config"].is_object() && out["config"].contains("layers"))
    out["config"] = upgrade_model_config({{"class_name", out["class_name"]}, {"config", out["config"]}})["config"];
  if (out.is_object() && out.contains("config") && out["config"].is_array())  // nested Keras 2.0 Sequential
    out["config"] = upgrade_model_config({{"class_name", out["class_name"]}, {"config", out["config"]}})["config"];
  return out;
}

}  // namespace

Config upgrade_model_config(const Config& in) {
  if (!in.is_object() || !in.contains("class_name") || !in.contains("config"))
    throw ValueError("model config: expected an object with \"class_name\" and \"config\", got: " +
                     in.dump().substr(0, 200));
  Config out = Config::object();
  for (auto it = in.begin(); it != in.end(); ++it)
    if (it.key() != "keras_version" && it.key() != "backend") out[it.key()] = it.value();
  Config& c = out["config"];
  if (c.is_array()) {
    for (auto& e : c) e = normalise_layer(e);
  } else if (c.is_object() && c.contains("layers") && c["layers"].is_array()) {
    for (auto& e : c["layers"]) e = normalise_layer(e);
  }
  return out;
}

bool uses_channels_first(const Config& c) {
  if (c.is_object()) {
    auto it = c.find("dim_ordering");
    if (it != c.end() && it->is_string() && *it == "th") return true;
    for (const auto& v : c) if (uses_channels_first(v)) return true;
  } else if (c.is_array()) {
    for (const auto& v : c) if (uses_channels_first(v)) return true;
  }
  return false;
}

std::shared_ptr<Model> model_from_file_config(const Config& c, const std::string& source, bool weights_follow) {
  // Sizes in a file's config are untrusted: building the model stays under max_read_bytes().
  detail::FileLoadScope scope(source);
  scope.weights_follow = weights_follow;
  Config up;
  try {
    up = upgrade_model_config(c);
  } catch (const Error& e) {
    throw ValueError(source + ": " + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw ValueError(source + ": malformed model config: " + detail::json_error_text(e));
  }
  const std::string cls = up["class_name"].is_string() ? up["class_name"].get<std::string>() : "";
  try {
    if (cls == "Sequential" || cls == "Functional" || cls == "Model") return Model::from_config(up);
    // A subclassed model: registered with register_layer_class.
    LayerPtr l = layer_from_config(up);
    auto m = std::dynamic_pointer_cast<Model>(l);
    if (!m) throw TypeError("the top-level object is a " + l->class_name() + " layer, not a model");
    if (up.contains("build_config") && up["build_config"].is_object() &&
        up["build_config"].contains("input_shape") && up["build_config"]["input_shape"].is_array()) {
      // Keras's build_from_config: run the model once so its variables exist
      // (Model::build is a no-op for subclassed models). None becomes 1.
      const Config& s = up["build_config"]["input_shape"];
      auto zeros_for = [](const Config& dims) {
        std::vector<int64_t> d;
        for (const auto& v : dims) d.push_back(v.is_null() ? 1 : ::kiln::detail::json_int(v, "build_config input_shape", 0));
        return zeros(Shape(d));
      };
      if (!s.empty() && s[0].is_array()) {
        std::vector<Tensor> xs;
        for (const auto& x : s) xs.push_back(zeros_for(x));
        (*m)(xs);
      } else {
        (*m)(zeros_for(s));
      }
    }
    return m;
  } catch (const NotFoundError& e) {
    throw NotFoundError(source + ": " + e.what());
  } catch (const nlohmann::json::exception& e) {
    throw ValueError(source + ": malformed model config: " + detail::json_error_text(e));
  } catch (const IOError&) {
    throw;
  } catch (const Error& e) {
    throw ValueError(source + ": cannot rebuild the model from its config: " + e.what());
  }
}

}  // namespace kiln::io
