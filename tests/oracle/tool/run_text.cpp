// The text layers against Keras (tests/oracle/oracle_text.py): Kiln builds each layer
// from the config Keras wrote before adapting, adapts it on the same data, and writes
// its vocabulary and outputs; loads the model Keras saved around its own adapted layer
// and predicts; and saves the same kind of model around its layer for Keras to load.
#include <fstream>

#include "kiln/kiln.h"
#include "oracle_io.h"

namespace oracle {

namespace {

namespace L = kiln::layers;

void shape_of(const json& v, std::vector<int64_t>& dims, std::size_t depth) {
  if (!v.is_array()) return;
  if (dims.size() <= depth) dims.push_back(static_cast<int64_t>(v.size()));
  if (!v.empty()) shape_of(v[0], dims, depth + 1);
}

template <class T>
void leaves(const json& v, std::vector<T>& out) {
  if (!v.is_array()) {
    out.push_back(v.get<T>());
    return;
  }
  for (const auto& e : v) leaves(e, out);
}

// A rectangular JSON list of strings or integers as a tensor.
kiln::Tensor tensor_of(const json& v) {
  std::vector<int64_t> dims;
  shape_of(v, dims, 0);
  const json* leaf = &v;
  while (leaf->is_array() && !leaf->empty()) leaf = &(*leaf)[0];
  if (leaf->is_string()) {
    std::vector<std::string> s;
    leaves(v, s);
    return kiln::Tensor(s, kiln::Shape(dims));
  }
  std::vector<int64_t> i;
  leaves(v, i);
  return kiln::Tensor(i, kiln::Shape(dims));
}

json nested(const kiln::Tensor& t) {
  json flat = json::array();
  if (t.dtype() == kiln::DType::string) {
    for (const auto& s : t.to_vector<std::string>()) flat.push_back(s);
  } else if (kiln::is_floating(t.dtype())) {
    for (double d : kiln::cast(t, kiln::DType::float64).to_vector<double>()) flat.push_back(d);
  } else {
    for (int64_t i : kiln::cast(t, kiln::DType::int64).to_vector<int64_t>()) flat.push_back(i);
  }
  for (int64_t d = t.rank() - 1; d >= 1; --d) {
    json rows = json::array();
    const auto n = static_cast<std::size_t>(t.shape()[d]);
    for (std::size_t i = 0; i < flat.size(); i += n) rows.push_back(json(flat.begin() + static_cast<std::ptrdiff_t>(i),
                                                                        flat.begin() + static_cast<std::ptrdiff_t>(i + n)));
    flat = std::move(rows);
  }
  return t.rank() == 0 ? flat[0] : flat;
}

void adapt(kiln::Layer& layer, const kiln::Tensor& data) {
  if (auto* tv = dynamic_cast<L::TextVectorizationImpl*>(&layer)) tv->adapt(data);
  else if (auto* sl = dynamic_cast<L::StringLookupImpl*>(&layer)) sl->adapt(data);
  else if (auto* il = dynamic_cast<L::IntegerLookupImpl*>(&layer)) il->adapt(data);
  else throw std::runtime_error("layer '" + layer.name() + "' (" + layer.class_name() + ") has no adapt()");
}

// The vocabulary with its special tokens, or null for the hashing layers.
json vocabulary(const kiln::Layer& layer) {
  if (auto* tv = dynamic_cast<const L::TextVectorizationImpl*>(&layer)) return tv->get_vocabulary();
  if (auto* sl = dynamic_cast<const L::StringLookupImpl*>(&layer)) return sl->get_vocabulary();
  if (auto* il = dynamic_cast<const L::IntegerLookupImpl*>(&layer)) return il->get_vocabulary();
  return nullptr;
}

kiln::Tensor call(kiln::Layer& layer, const std::vector<kiln::Tensor>& xs) {
  return xs.size() == 1 ? layer(xs[0]) : layer(xs).at(0);
}

// The model's one layer that is not an InputLayer.
kiln::LayerPtr text_layer(const kiln::Model& m) {
  for (const auto& l : m.layers())
    if (l->class_name() != "InputLayer") return l;
  throw std::runtime_error("the model has no layer besides its inputs");
}

void save_model(const kiln::LayerPtr& layer, const json& specs, const std::string& path) {
  std::vector<kiln::Tensor> inputs;
  for (const auto& s : specs) {
    const std::string dt = s.at("dtype");
    inputs.push_back(kiln::Input(kiln::Shape(s.at("shape").get<std::vector<int64_t>>()),
                                 {.dtype = dt == "string" ? kiln::DType::string : kiln::dtype_from_name(dt)}));
  }
  kiln::Model model(inputs, std::vector<kiln::Tensor>{call(*layer, inputs)});
  model.save(path);
}

// The driver's functions (oracle_text.py), registered under the names its configs give them.
void register_functions() {
  kiln::layers::register_standardize("kiln_oracle>custom_standardization", [](const kiln::Tensor& x) {
    const kiln::Tensor no_html = kiln::strings::regex_replace(kiln::strings::lower(x), "<br />", " ");
    return kiln::strings::regex_replace(no_html, R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])", "");
  });
  kiln::layers::register_split("kiln_oracle>split_on_commas",
                               [](const kiln::Tensor& x) { return kiln::strings::split(x, ","); });
}

}  // namespace

int run_text(const Group& g) {
  register_functions();
  g.for_each_case([&](const json& c) {
    const std::string id = c.at("id");
    json result = json::object();
    std::vector<kiln::Tensor> xs;
    for (const auto& x : c.at("inputs")) xs.push_back(tensor_of(x));
    kiln::LayerPtr layer = kiln::layer_from_config({{"class_name", c.at("class")}, {"config", c.at("config")}});
    if (c.contains("adapt") && !c.at("adapt").is_null()) adapt(*layer, tensor_of(c.at("adapt")));
    if (json v = vocabulary(*layer); !v.is_null()) result["vocabulary"] = v;
    result["output"] = nested(call(*layer, xs));
    if (c.contains("keras_file") && !c.at("keras_file").is_null()) {
      auto loaded = kiln::models::load_model((g.dir() / c.at("keras_file").get<std::string>()).string(), {.compile = false});
      result["loaded_output"] = nested(xs.size() == 1 ? (*loaded)(xs[0]) : (*loaded)(xs).at(0));
      if (json v = vocabulary(*text_layer(*loaded)); !v.is_null()) result["loaded_vocabulary"] = v;
    }
    save_model(layer, c.at("input_specs"), (g.dir() / c.at("kiln_file").get<std::string>()).string());
    const auto dir = g.dir() / "out" / id;
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "result.json") << result.dump();
  });
  return 0;
}

}  // namespace oracle
