// TextVectorization's standardize and split functions: the registry that lets a config
// name one, and their config form, Keras's serialized function
// {"module": "builtins", "class_name": "function", "config": "<registered name>", ...}.
#include <map>
#include <mutex>

#include "kiln/core/error.h"
#include "kiln/layers/text_vectorization.h"
#include "kiln/ops/ragged.h"
#include "config_fields.h"
#include "text_functions.h"

namespace kiln::layers {

namespace {

template <class F>
struct FunctionRegistry {
  std::mutex mutex;
  std::map<std::string, F> functions;
  void add(const std::string& name, F f) {
    std::lock_guard<std::mutex> lock(mutex);
    functions[name] = std::move(f);
  }
  F find(const std::string& name, const char* what) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = functions.find(name);
    if (it == functions.end())
      throw ValueError(std::string("TextVectorization: `") + what + "` is the function '" + name + "', which is not "
                       "registered in this program: call kiln::layers::register_" + what + "(\"" + name +
                       "\", function) before loading");
    return it->second;
  }
};

FunctionRegistry<std::function<Tensor(const Tensor&)>>& standardizers() {
  static FunctionRegistry<std::function<Tensor(const Tensor&)>> r;
  return r;
}
FunctionRegistry<std::function<RaggedTensor(const Tensor&)>>& splitters() {
  static FunctionRegistry<std::function<RaggedTensor(const Tensor&)>> r;
  return r;
}

Config function_config(const std::string& name) {
  return {{"module", "builtins"}, {"class_name", "function"}, {"config", name}, {"registered_name", "function"}};
}

// The registered name of a serialized function, or the mode's name.
std::string name_in(const config_io::ConfigReader& r, const char* key, bool& is_function) {
  const Config& j = r.raw()[key];
  is_function = j.is_object();
  if (j.is_string()) return j.get<std::string>();
  if (j.is_object() && j.value("class_name", "") == "function" && j.contains("config") && j["config"].is_string())
    return j["config"].get<std::string>();
  r.fail(key, "a mode name or a serialized function");
  return {};
}

}  // namespace

Standardize::Standardize(std::string registered_name, std::function<Tensor(const Tensor&)> f)
    : name(std::move(registered_name)), function(std::move(f)) {
  register_standardize(name, function);
}

Split::Split(std::string registered_name, std::function<RaggedTensor(const Tensor&)> f)
    : name(std::move(registered_name)), function(std::move(f)) {
  register_split(name, function);
}

void register_standardize(const std::string& name, std::function<Tensor(const Tensor&)> function) {
  if (!function) throw ValueError("register_standardize('" + name + "'): the function is empty");
  standardizers().add(name, std::move(function));
}

void register_split(const std::string& name, std::function<RaggedTensor(const Tensor&)> function) {
  if (!function) throw ValueError("register_split('" + name + "'): the function is empty");
  splitters().add(name, std::move(function));
}

Config config_value(const Standardize& v) { return v.function ? function_config(v.name) : Config(v.name); }
Config config_value(const Split& v) { return v.function ? function_config(v.name) : Config(v.name); }

void read_value(const config_io::ConfigReader& r, const char* key, Standardize& v) {
  bool is_function = false;
  const std::string name = name_in(r, key, is_function);
  v = is_function ? Standardize(name, standardizers().find(name, "standardize")) : Standardize(name);
}

void read_value(const config_io::ConfigReader& r, const char* key, Split& v) {
  bool is_function = false;
  const std::string name = name_in(r, key, is_function);
  v = is_function ? Split(name, splitters().find(name, "split")) : Split(name);
}

}  // namespace kiln::layers
