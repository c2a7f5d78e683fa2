// Initializer lookup: Keras class names, snake_case names and aliases mapped to
// factories that read a Keras config (rejecting unknown keys, as cls(**config)
// would).
#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/json_errors.h"
#include "kiln/core/error.h"
#include "kiln/core/registry.h"
#include "kiln/nn/initializers.h"
#include "nn/window_config.h"

namespace kiln::initializers {
namespace {

// Reads config values, rejecting keys the class does not take (as Keras's
// cls(**config) would) so that typos in hand-written configs are caught.
class Args {
 public:
  Args(const std::string& cls, const Config& c, std::initializer_list<const char*> allowed) : cls_(cls), c_(c) {
    if (c_.is_null()) return;
    if (!c_.is_object()) throw ValueError(cls_ + ".from_config: expected a JSON object config, got " + c_.dump());
    for (const auto& item : c_.items()) {
      const std::string& k = item.key();  // a plain name: clang 14 cannot capture structured bindings
      bool ok = std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return k == a; });
      if (!ok) throw ValueError(cls_ + ".from_config: unexpected config key '" + k + "' in " + c_.dump());
    }
  }
  double num(const char* key, double def) const {
    if (c_.is_null() || !c_.contains(key) || c_[key].is_null()) return def;
    if (!c_[key].is_number())
      throw ValueError(cls_ + ".from_config: '" + key + "' must be a number, got " + c_[key].dump());
    return c_[key].get<double>();
  }
  std::string str(const char* key, const std::string& def) const {
    if (c_.is_null() || !c_.contains(key) || c_[key].is_null()) return def;
    if (!c_[key].is_string())
      throw ValueError(cls_ + ".from_config: '" + key + "' must be a string, got " + c_[key].dump());
    return c_[key].get<std::string>();
  }
  /// Keras 3.15's input_axes / output_axes (null or a list of ints).
  FanAxes fan_axes() const {
    FanAxes f;
    for (auto [key, slot] : {std::pair{"input_axes", &f.input_axes}, std::pair{"output_axes", &f.output_axes}}) {
      if (c_.is_null() || !c_.contains(key) || c_[key].is_null()) continue;
      const auto& v = c_[key];
      if (!v.is_array()) throw ValueError(cls_ + ".from_config: '" + key + "' must be a list of integers, got " + v.dump());
      std::vector<int> axes;
      for (const auto& e : v) {
        if (!e.is_number_integer())
          throw ValueError(cls_ + ".from_config: '" + key + "' must be a list of integers, got " + v.dump());
        axes.push_back(e.get<int>());
      }
      *slot = axes;
    }
    return f;
  }
  std::optional<uint64_t> seed() const {
    if (c_.is_null() || !c_.contains("seed") || c_["seed"].is_null()) return std::nullopt;
    const auto& s = c_["seed"];
    if (!s.is_number_integer())
      throw ValueError(cls_ + ".from_config: 'seed' must be an integer or null, got " + s.dump());
    return s.is_number_unsigned() ? s.get<uint64_t>() : static_cast<uint64_t>(s.get<int64_t>());
  }

 private:
  std::string cls_;
  const Config& c_;
};

using Factory = std::function<InitializerPtr(const Config&)>;

const Registry<Factory>& registry() {
  static const Registry<Factory> r = [] {
    Registry<Factory> t("initializer");
    // Each class under its Keras class name and its snake_case name.
    auto add = [&t](const std::string& cls, Factory f) {
      t.add(cls, f);
      t.add(to_snake_case(cls), f);
    };
    add("Zeros", [](const Config& c) { Args("Zeros", c, {}); return Zeros(); });
    add("Ones", [](const Config& c) { Args("Ones", c, {}); return Ones(); });
    add("Constant", [](const Config& c) { Args a("Constant", c, {"value"}); return Constant(a.num("value", 0.0)); });
    add("Identity", [](const Config& c) { Args a("Identity", c, {"gain"}); return Identity(a.num("gain", 1.0)); });
    add("RandomNormal", [](const Config& c) {
      Args a("RandomNormal", c, {"mean", "stddev", "seed"});
      return RandomNormal(a.num("mean", 0.0), a.num("stddev", 0.05), a.seed());
    });
    add("TruncatedNormal", [](const Config& c) {
      Args a("TruncatedNormal", c, {"mean", "stddev", "seed"});
      return TruncatedNormal(a.num("mean", 0.0), a.num("stddev", 0.05), a.seed());
    });
    add("RandomUniform", [](const Config& c) {
      Args a("RandomUniform", c, {"minval", "maxval", "seed"});
      return RandomUniform(a.num("minval", -0.05), a.num("maxval", 0.05), a.seed());
    });
    add("VarianceScaling", [](const Config& c) {
      Args a("VarianceScaling", c, {"scale", "mode", "distribution", "seed", "input_axes", "output_axes"});
      return VarianceScaling(a.num("scale", 1.0), a.str("mode", "fan_in"), a.str("distribution", "truncated_normal"),
                             a.seed(), a.fan_axes());
    });
    add("GlorotUniform", [](const Config& c) {
      Args a("GlorotUniform", c, {"seed", "input_axes", "output_axes"});
      return GlorotUniform(a.seed(), a.fan_axes());
    });
    add("GlorotNormal", [](const Config& c) {
      Args a("GlorotNormal", c, {"seed", "input_axes", "output_axes"});
      return GlorotNormal(a.seed(), a.fan_axes());
    });
    add("HeUniform", [](const Config& c) {
      Args a("HeUniform", c, {"seed", "input_axes", "output_axes"});
      return HeUniform(a.seed(), a.fan_axes());
    });
    add("HeNormal", [](const Config& c) {
      Args a("HeNormal", c, {"seed", "input_axes", "output_axes"});
      return HeNormal(a.seed(), a.fan_axes());
    });
    add("LecunUniform", [](const Config& c) {
      Args a("LecunUniform", c, {"seed", "input_axes", "output_axes"});
      return LecunUniform(a.seed(), a.fan_axes());
    });
    add("LecunNormal", [](const Config& c) {
      Args a("LecunNormal", c, {"seed", "input_axes", "output_axes"});
      return LecunNormal(a.seed(), a.fan_axes());
    });
    add("Orthogonal", [](const Config& c) {
      Args a("Orthogonal", c, {"gain", "seed"});
      return Orthogonal(a.num("gain", 1.0), a.seed());
    });
    add("STFT", [](const Config& c) {
      Args a("STFT", c, {"side", "window", "scaling", "periodic"});
      Window w = c.is_object() && c.contains("window") ? window_from_config(c["window"], "STFT") : Window("hann");
      std::optional<std::string> scaling = "density";
      if (c.is_object() && c.contains("scaling")) scaling = c["scaling"].is_null() ? std::nullopt : std::optional(a.str("scaling", ""));
      const bool periodic = c.is_object() && c.contains("periodic") && c["periodic"].is_boolean() && c["periodic"].get<bool>();
      return STFT(a.str("side", "real"), w, scaling, periodic);
    });
    // Aliases Keras accepts as well.
    add("STFTInitializer", *t.find("STFT"));
    add("OrthogonalInitializer", *t.find("Orthogonal"));
    add("IdentityInitializer", *t.find("Identity"));
    t.add("uniform", *t.find("RandomUniform"));
    t.add("normal", *t.find("RandomNormal"));
    t.add("one", *t.find("Ones"));
    t.add("zero", *t.find("Zeros"));
    return t;
  }();
  return r;
}

}  // namespace


InitializerPtr get(const std::string& name) {
  // A JSON object given as text, e.g. read from a config file.
  if (!name.empty() && name.front() == '{') {
    Config c;
    try {
      c = parse_json(name);
    } catch (const nlohmann::json::exception& e) {
      throw ValueError("initializers::get: could not parse the JSON config " + name + ": " + detail::json_error_text(e));
    }
    return from_config(c);
  }
  return registry().get(name)(Config(nullptr));
}

InitializerPtr from_config(const Config& c) {
  if (c.is_string()) return get(c.get<std::string>());
  if (!c.is_object() || !c.contains("class_name") || !c["class_name"].is_string())
    throw ValueError("initializers::from_config: expected {\"class_name\": ..., \"config\": {...}}, got " + c.dump());
  const std::string cls = c["class_name"].get<std::string>();
  Config cfg = c.contains("config") ? c["config"] : Config(nullptr);
  return registry().get(cls)(cfg);
}

Config serialize(const Initializer& i) {
  return {{"module", "keras.initializers"},
          {"class_name", i.class_name()},
          {"config", i.get_config()},
          {"registered_name", nullptr}};
}

}  // namespace kiln::initializers
