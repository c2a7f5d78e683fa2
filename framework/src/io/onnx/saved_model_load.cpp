// saved_model::load: the variables first, then every function's graphs bound
// to them. Every file is read through SavedFiles (no links, checksums).
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/json_errors.h"

#include "io/finite_values.h"
#include "io/onnx/saved_model_files.h"
#include "io/onnx/onnx_reader.h"
#include "io/onnx/onnx_runner.h"
#include "kiln/core/error.h"
#include "kiln/io/saved_model.h"

namespace kiln::saved_model {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

io::onnx::ModelData read_model(const SavedFiles& files, const std::string& rel) {
  return io::onnx::decode_model(files.read(rel), files.path(rel));
}

json read_index(const SavedFiles& files) {
  const std::string path = files.path("saved_model.json");
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec)))
    throw IOError("saved_model::load: '" + path + "' is missing, so '" + fs::path(path).parent_path().string() +
                  "' is not a directory saved by kiln::saved_model::save");
  const std::string bytes = files.read("saved_model.json");
  json index = json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (index.is_discarded() || !index.is_object() || index.value("format", "") != "kiln.saved_model")
    throw IOError("saved_model::load: '" + path + "' is not a Kiln SavedModel index (corrupt or truncated JSON)");
  return index;
}

/// Version 1 had no checksums; such folders load unchecked, as their format
/// says nothing is to be checked. Version 2 records every file's SHA-256.
void read_checksums(const json& index, const std::string& index_path, SavedFiles& files) {
  const json& version = index.contains("version") ? index["version"] : json(1);
  if (!version.is_number_integer() || version.get<int64_t>() < 1 || version.get<int64_t>() > 2)
    throw IOError("saved_model::load: '" + index_path + "' has format version " + version.dump() +
                  "; this Kiln reads versions 1 and 2 (a newer Kiln wrote it, or the file is damaged)");
  if (version.get<int64_t>() == 1) return;
  if (!index.contains("files") || !index["files"].is_object())
    throw IOError("saved_model::load: '" + index_path + "' has no \"files\" checksums, which format version 2 requires");
  std::map<std::string, std::string> sums;
  for (const auto& [rel, sum] : index["files"].items()) {
    if (!sum.is_string()) throw IOError("saved_model::load: '" + index_path + "': the checksum of '" + rel + "' is not a string");
    sums[rel] = sum.get<std::string>();
  }
  files.set_checksums(std::move(sums));
}

std::string field_error(const std::string& path, const json::exception& e) {
  return "saved_model::load: '" + path + "' is malformed: " + detail::json_error_text(e);
}

/// index[key] as T, or an IOError naming the file, the entry and the key.
template <class T>
T index_field(const json& obj, const std::string& key, const std::string& where) {
  try {
    return detail::json_field<T>(obj, key, where);
  } catch (const ValueError& e) {
    throw IOError(e.what());
  }
}

}  // namespace

LoadedFunction::LoadedFunction(std::string name, std::vector<std::shared_ptr<io::onnx::GraphRunner>> graphs)
    : name_(std::move(name)), graphs_(std::move(graphs)) {}

std::vector<Tensor> LoadedFunction::operator()(const std::vector<Tensor>& args) const {
  for (const auto& g : graphs_)
    if (g->accepts(args)) return g->run(args);
  std::string got = "(";
  for (std::size_t i = 0; i < args.size(); ++i)
    got += (i ? ", " : "") + io::onnx::tensor_text(args[i]);
  throw ValueError("saved function '" + name_ + "' was called with inputs " + got +
                   ") that match none of its saved signatures:\n" + pretty_printed_signatures());
}

std::string LoadedFunction::pretty_printed_signatures() const {
  std::string s;
  for (const auto& g : graphs_) {
    std::string outs;
    for (const auto& o : g->graph().outputs) {
      outs += (outs.empty() ? "" : ", ") + std::string(dtype_name(o.dtype)) + "[";
      for (std::size_t d = 0; d < o.dims.size(); ++d)
        outs += (d ? ", " : "") + (o.dims[d].param.empty() ? std::to_string(o.dims[d].value) : o.dims[d].param);
      outs += "]";
    }
    s += "  " + g->signature() + " -> (" + outs + ")\n";
  }
  return s;
}

const LoadedFunction& Loaded::function(const std::string& name) const {
  auto it = functions_.find(name);
  if (it != functions_.end()) return it->second;
  std::string known;
  for (const auto& [n, f] : functions_) known += (known.empty() ? "" : ", ") + n;
  throw ValueError("the loaded SavedModel has no function '" + name + "' (it has: " + known + ")");
}

std::vector<std::string> Loaded::function_names() const {
  std::vector<std::string> names;
  for (const auto& [n, f] : functions_) names.push_back(n);
  return names;
}

Tensor Loaded::operator()(const Tensor& x) const {
  const std::string name = functions_.count("__call__") ? "__call__" : "serve";
  auto out = function(name)({x});
  if (out.size() != 1) throw ValueError("saved function '" + name + "' returns " + std::to_string(out.size()) + " tensors; use call()");
  return out[0];
}

std::vector<Variable> Loaded::trainable_variables() const {
  std::vector<Variable> out;
  for (const auto& v : variables_)
    if (v.trainable()) out.push_back(v);
  return out;
}

std::shared_ptr<Loaded> load(const std::string& dir) {
  SavedFiles files{fs::path(dir)};
  const std::string index_path = files.path("saved_model.json");
  const json index = read_index(files);
  read_checksums(index, index_path, files);
  auto loaded = std::make_shared<Loaded>();
  std::map<std::string, Variable> by_path;
  const auto vars = read_model(files, "variables.onnx");
  try {
    const std::string where = "saved_model::load: '" + index_path + "'";
    for (const auto& v : index.at("variables")) {
      const std::string path = index_field<std::string>(v, "path", where + ", a variable");
      const io::onnx::TensorData* init = nullptr;
      for (const auto& t : vars.graph.initializers)
        if (t.name == path) init = &t;
      if (!init) throw IOError("saved_model::load: '" + files.path("variables.onnx") + "' has no value for variable '" + path + "'");
      const Tensor value = io::onnx::tensor_from(*init);
      io::require_finite_values(value, "saved_model::load: '" + files.path("variables.onnx") + "', variable '" + path + "'",
                                "a SavedModel's variables must be finite");
      Variable var(value, {.name = path, .trainable = index_field<bool>(v, "trainable", where + ", variable '" + path + "'")});
      by_path.emplace(path, var);
      loaded->variables_.push_back(var);
    }
    for (const auto& [name, entries] : index.at("functions").items()) {
      std::vector<std::shared_ptr<io::onnx::GraphRunner>> graphs;
      for (const auto& e : entries) {
        const std::string rel = index_field<std::string>(e, "file", where + ", function '" + name + "'");
        graphs.push_back(std::make_shared<io::onnx::GraphRunner>(read_model(files, rel).graph, by_path, files.path(rel)));
      }
      loaded->functions_.emplace(name, LoadedFunction(name, std::move(graphs)));
    }
  } catch (const json::exception& e) {
    throw IOError(field_error(index_path, e));
  }
  return loaded;
}

}  // namespace kiln::saved_model
