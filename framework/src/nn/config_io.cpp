// Config objects: the reader and the value codecs (config_io.h).
#include "nn/config_io.h"

#include <cmath>
#include <fstream>
#include <string_view>

#include "kiln/core/error.h"

namespace kiln::config_io {

Config config_value(const Shape& s) { return shape_to_json(s); }

Config shape_to_json(const Shape& s) {
  Config j = Config::array();
  for (auto d : s) j.push_back(d < 0 ? Config(nullptr) : Config(d));
  return j;
}

Shape shape_from_json(const Config& j, const std::string& where) {
  if (!j.is_array()) throw ValueError(where + ": expected a shape list such as [null, 28, 28, 1], got " + j.dump());
  Shape s;
  for (const auto& d : j) {
    if (d.is_null()) s.push_back(None);
    else if (d.is_number_integer()) s.push_back(d.get<int64_t>());
    else throw ValueError(where + ": shape entries must be integers or null, got " + j.dump());
  }
  return s;
}

Config config_value(const InitializerArg& i) { return initializers::serialize(*i.resolve()); }
Config config_value(const regularizers::RegularizerPtr& r) {
  return r ? regularizers::serialize(*r) : Config(nullptr);
}
Config config_value(const constraints::ConstraintPtr& c) {
  return c ? constraints::serialize(*c) : Config(nullptr);
}

Config config_value(const Axes& a) {
  if (!a.axes) return nullptr;
  if (a.axes->size() == 1) return (*a.axes)[0];
  Config j = Config::array();
  for (int v : *a.axes) j.push_back(v);
  return j;
}

Config config_value(const std::vector<int>& v) { return v.empty() ? Config(nullptr) : Config(v); }

Config config_value(const std::vector<int64_t>& v) {
  Config j = Config::array();
  for (int64_t d : v) j.push_back(d < 0 ? Config(nullptr) : Config(d));
  return j;
}

void read_value(const ConfigReader& r, const char* key, std::string& v) {
  // Activation keys also accept null ("linear") and Keras 3's serialized function objects.
  if (std::string_view(key).find("activation") != std::string_view::npos) v = r.activation(key, v);
  else v = r.string(key, v);
}
void read_value(const ConfigReader& r, const char* key, bool& v) { v = r.boolean(key, v); }
void read_value(const ConfigReader& r, const char* key, int& v) {
  v = static_cast<int>(r.integer_or_first(key, v));
}
void read_value(const ConfigReader& r, const char* key, int64_t& v) { v = r.integer_or_first(key, v); }
void read_value(const ConfigReader& r, const char* key, uint64_t& v) {
  v = static_cast<uint64_t>(r.integer_or_first(key, static_cast<int64_t>(v)));
}
void read_value(const ConfigReader& r, const char* key, double& v) { v = r.number(key, v); }
void read_value(const ConfigReader& r, const char* key, Axes& v) { v = r.axes(key, v); }
void read_value(const ConfigReader& r, const char* key, InitializerArg& v) { v = r.initializer(key, v); }
void read_value(const ConfigReader& r, const char* key, regularizers::RegularizerPtr& v) {
  if (r.raw().contains(key)) v = r.regularizer(key);
}
void read_value(const ConfigReader& r, const char* key, constraints::ConstraintPtr& v) {
  if (r.raw().contains(key)) v = r.constraint(key);
}
void read_value(const ConfigReader& r, const char* key, Shape& v) {
  if (r.has(key)) v = shape_from_json(r.raw()[key], r.class_name() + ".from_config '" + key + "'");
}
void read_value(const ConfigReader& r, const char* key, std::vector<int>& v) {
  if (!r.has(key)) return;
  v.clear();
  for (int64_t d : r.int_list(key)) v.push_back(static_cast<int>(d));
}
void read_value(const ConfigReader& r, const char* key, std::vector<int64_t>& v) {
  if (r.has(key)) v = r.int_list(key);
}
Config config_value(const std::vector<double>& v) { return v; }
Config config_value(const std::vector<std::string>& v) { return v; }
void read_value(const ConfigReader& r, const char* key, std::vector<std::string>& v) {
  if (!r.has(key)) return;
  const Config& j = r.raw()[key];
  if (j.is_string()) {
    const std::string path = j.get<std::string>();
    std::ifstream in(path, std::ios::binary);
    if (!in) r.fail(key, "a list of strings, or the path of a readable text file (cannot open '" + path + "')");
    v.clear();
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      v.push_back(line);
    }
    while (!v.empty() && v.back().empty()) v.pop_back();  // Keras drops trailing empty lines
    return;
  }
  if (!j.is_array()) r.fail(key, "a list of strings");
  v.clear();
  for (const auto& x : j) {
    if (!x.is_string()) r.fail(key, "a list of strings");
    v.push_back(x.get<std::string>());
  }
}
void read_value(const ConfigReader& r, const char* key, std::vector<double>& v) {
  if (!r.has(key)) return;
  const Config& j = r.raw()[key];
  if (j.is_number()) {
    v = {j.get<double>()};
    return;
  }
  if (!j.is_array()) r.fail(key, "a list of numbers");
  v.clear();
  for (const auto& x : j) {
    if (!x.is_number()) r.fail(key, "a list of numbers");
    v.push_back(x.get<double>());
  }
}

// ---- ConfigReader ----
ConfigReader::ConfigReader(std::string cls, const Config& c) : cls_(std::move(cls)), c_(c) {
  if (!c_.is_object()) throw ValueError(cls_ + ".from_config: expected a JSON object config, got " + c_.dump());
}

void ConfigReader::fail(const char* key, const std::string& what) const {
  throw ValueError(cls_ + ".from_config: '" + key + "' must be " + what + ", got " + c_[key].dump());
}

bool ConfigReader::has(const char* key) const { return c_.contains(key) && !c_[key].is_null(); }
bool ConfigReader::is_null(const char* key) const { return c_.contains(key) && c_[key].is_null(); }

int64_t ConfigReader::integer(const char* key, int64_t def) const {
  if (!has(key)) return def;
  const auto& v = c_[key];
  if (v.is_number_integer()) return v.get<int64_t>();
  // Some writers store whole numbers as floats (e.g. 2.0). The range check
  // comes first: converting a double outside int64's range is undefined.
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == std::trunc(d)) return static_cast<int64_t>(d);
  }
  fail(key, "an integer");
}
void ConfigReader::require(const char* key) const {
  if (!has(key)) throw ValueError(cls_ + ".from_config: missing required key '" + key + "' in " + c_.dump());
}
int64_t ConfigReader::required_integer(const char* key) const {
  require(key);
  return integer(key, 0);
}
int64_t ConfigReader::integer_or_first(const char* key, int64_t def) const {
  if (!has(key)) return def;
  const auto& v = c_[key];
  if (v.is_array() && v.size() == 1) {
    Config one = Config::object();
    one[key] = v[0];
    return ConfigReader(cls_, one).integer(key, def);
  }
  return integer(key, def);
}
std::optional<int64_t> ConfigReader::optional_integer(const char* key) const {
  if (!has(key)) return std::nullopt;
  return integer(key, 0);
}
double ConfigReader::number(const char* key, double def) const {
  if (!has(key)) return def;
  if (!c_[key].is_number()) fail(key, "a number");
  return c_[key].get<double>();
}
std::optional<double> ConfigReader::optional_number(const char* key) const {
  if (!has(key)) return std::nullopt;
  return number(key, 0);
}
bool ConfigReader::boolean(const char* key, bool def) const {
  if (!has(key)) return def;
  if (!c_[key].is_boolean()) fail(key, "a bool");
  return c_[key].get<bool>();
}
std::string ConfigReader::string(const char* key, const std::string& def) const {
  if (!has(key)) return def;
  if (!c_[key].is_string()) fail(key, "a string");
  return c_[key].get<std::string>();
}

int64_t ConfigReader::int_or_first(const char* key, int64_t def) const {
  if (!has(key)) return def;
  const auto& v = c_[key];
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_array() && v.size() == 1 && v[0].is_number_integer()) return v[0].get<int64_t>();
  fail(key, "an integer or a list of one integer");
}

std::vector<int64_t> ConfigReader::int_list(const char* key) const {
  std::vector<int64_t> out;
  if (!has(key)) return out;
  const auto& v = c_[key];
  if (v.is_number_integer()) return {v.get<int64_t>()};
  if (!v.is_array()) fail(key, "a list of integers");
  for (const auto& e : v) {
    if (e.is_null()) out.push_back(None);
    else if (e.is_number_integer()) out.push_back(e.get<int64_t>());
    else fail(key, "a list of integers");
  }
  return out;
}

Axes ConfigReader::axes(const char* key, Axes def) const {
  if (!has(key)) return def;
  const auto& v = c_[key];
  if (v.is_number_integer()) return Axes(v.get<int>());
  if (v.is_array()) {
    std::vector<int> a;
    for (const auto& e : v) {
      if (!e.is_number_integer()) fail(key, "an integer or a list of integers");
      a.push_back(e.get<int>());
    }
    return Axes(a);
  }
  fail(key, "an integer or a list of integers");
}

InitializerArg ConfigReader::initializer(const char* key, const InitializerArg& def) const {
  if (!has(key)) return def;
  const auto& v = c_[key];
  if (v.is_string()) return InitializerArg(v.get<std::string>());
  if (v.is_object()) {
    // tf.keras 2.2-2.4 stored {"dtype": "float32"} in initializer configs;
    // the initializers themselves do not take it.
    Config copy = v;
    if (copy.contains("config") && copy["config"].is_object()) copy["config"].erase("dtype");
    return InitializerArg(initializers::from_config(copy));
  }
  fail(key, "an initializer name or a {\"class_name\", \"config\"} object");
}

regularizers::RegularizerPtr ConfigReader::regularizer(const char* key) const {
  if (!has(key)) return nullptr;
  const auto& v = c_[key];
  if (v.is_string()) return regularizers::get(v.get<std::string>());
  if (v.is_object()) return regularizers::from_config(v);
  fail(key, "null, a regularizer name or a {\"class_name\", \"config\"} object");
}

constraints::ConstraintPtr ConfigReader::constraint(const char* key) const {
  if (!has(key)) return nullptr;
  const auto& v = c_[key];
  if (v.is_string()) return constraints::get(v.get<std::string>());
  if (v.is_object()) return constraints::from_config(v);
  fail(key, "null, a constraint name or a {\"class_name\", \"config\"} object");
}

std::string ConfigReader::activation(const char* key, const std::string& def) const {
  if (!c_.contains(key)) return def;
  const auto& v = c_[key];
  if (v.is_null()) return "linear";
  if (v.is_string()) return v.get<std::string>();
  // Keras 3 may serialize a built-in activation as an object whose "config" is its name.
  if (v.is_object() && v.contains("config") && v["config"].is_string()) return v["config"].get<std::string>();
  if (v.is_object() && v.contains("class_name") && v["class_name"].is_string())
    return v["class_name"].get<std::string>();
  fail(key, "an activation name");
}

DTypePolicy ConfigReader::policy_named(const std::string& name) const {
  try {
    return DTypePolicy(name);
  } catch (const ValueError&) {
    fail("dtype", "a dtype name such as 'float32', 'mixed_float16' or 'mixed_bfloat16'");
  }
}

DTypePolicy ConfigReader::dtype_policy() const {
  if (!has("dtype") || c_["dtype"].is_null()) return DTypePolicy();
  const auto& v = c_["dtype"];
  if (v.is_string()) return policy_named(v.get<std::string>());
  if (v.is_object() && v.contains("config") && v["config"].is_object() && v["config"].contains("name") &&
      v["config"]["name"].is_string()) {
    const std::string cls = v.value("class_name", "DTypePolicy");
    if (cls != "DTypePolicy" && cls != "FloatDTypePolicy" && cls != "Policy")
      fail("dtype", "a DTypePolicy (Kiln reads no " + cls + " yet)");
    return policy_named(v["config"]["name"].get<std::string>());
  }
  const std::string quantized_class = v.is_object() ? v.value("class_name", "") : "";
  if ((quantized_class == "QuantizedDTypePolicy" || quantized_class == "Int4DTypePolicy") && v.contains("config") &&
      v["config"].is_object() && v["config"].value("mode", Config()).is_string()) {
    const Config& c = v["config"];
    const std::string source = c.contains("source_name") && c["source_name"].is_string()
                                   ? c["source_name"].get<std::string>()
                                   : DTypePolicy().name();
    try {
      return DTypePolicy::quantized(c["mode"].get<std::string>(), source);
    } catch (const ValueError& e) {
      fail("dtype", "a valid " + quantized_class + " (" + e.what() + ")");
    }
  }
  fail("dtype", "a dtype name or a DTypePolicy object");
}

DType ConfigReader::dtype() const {
  if (!has("dtype") || c_["dtype"].is_null()) return DType::float32;
  return dtype_policy().compute_dtype();
}

std::optional<Shape> ConfigReader::input_shape() const {
  // tf.keras: "batch_input_shape" (with batch); Keras 3 InputLayer: "batch_shape";
  // "input_shape" (without batch) also appears in hand-written configs.
  for (const char* key : {"batch_input_shape", "batch_shape"})
    if (has(key)) return shape_from_json(c_[key], cls_ + ".from_config '" + key + "'").slice(1);
  if (has("input_shape")) return shape_from_json(c_["input_shape"], cls_ + ".from_config 'input_shape'");
  return std::nullopt;
}

}  // namespace kiln::config_io
