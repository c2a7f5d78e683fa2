// saved_model::save: every function's graphs as ONNX files, the variables in
// one more, and an index with every file's SHA-256; written to a fresh
// directory that then trades places with the old one (io/atomic_dir.h).
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "io/atomic_dir.h"
#include "io/onnx/model_export.h"
#include "io/onnx/onnx_proto.h"
#include "io/sha256.h"
#include "kiln/core/error.h"
#include "kiln/io/saved_model.h"
#include "kiln/training/model.h"

namespace kiln::saved_model {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string file_name(const std::string& name) {
  std::string s = name;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-' && ch != '.') ch = '_';
  return s;
}

/// Writes `root/rel` and records its checksum in the index's "files".
void write(const fs::path& root, const std::string& rel, const std::string& bytes, json& index) {
  const fs::path path = root / rel;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw IOError("saved_model::save: could not write '" + path.string() + "'");
  index["files"][rel] = io::sha256_hex(bytes);
}

/// variables.onnx: each variable an initializer, returned by an Identity, so any runtime can read them.
std::string variables_graph(const std::vector<Variable>& vars, int opset) {
  io::onnx::GraphProto g;
  g.name = "variables";
  for (const auto& v : vars) {
    const Tensor t = v.read_value_untracked();
    const Tensor host = t.device().is_cpu() ? t : t.to(Device::cpu());
    io::onnx::TensorData d{v.path(), v.dtype(), v.shape().dims(), {}};
    if (t.size() > 0) d.raw.assign(static_cast<const char*>(host.raw_data()), static_cast<std::size_t>(t.size()) * dtype_size(t.dtype()));
    g.initializers.push_back(d);
    io::onnx::ValueInfo out{v.path() + ":value", v.dtype(), {}};
    const Shape shape = v.shape();  // by value: a range over v.shape().dims() would outlive it
    for (int64_t n : shape.dims()) out.dims.push_back({n, {}});
    g.nodes.push_back({"Identity", {v.path()}, {out.name}, out.name, {}});
    g.outputs.push_back(out);
  }
  return io::onnx::encode_model(g, opset, "0.2");
}

void save_all(const std::vector<Variable>& vars, const std::vector<SavedFunction>& functions, const std::string& dir,
              int opset) {
  std::set<std::string> paths;
  for (const auto& v : vars)
    if (!paths.insert(v.path()).second)
      throw ValueError("saved_model::save('" + dir + "'): two variables have the path '" + v.path() +
                       "'; give them distinct names");
  io::atomic_write_dir(dir, "saved_model.json", [&](const std::string& tmp_dir) {
    const fs::path tmp(tmp_dir);
    fs::create_directory(tmp / "functions");
    // Version 2 added "files": the SHA-256 of every file, checked by load.
    json index = {{"format", "kiln.saved_model"}, {"version", 2}, {"functions", json::object()},
                  {"variables", json::array()}, {"files", json::object()}};
    std::set<std::string> names;
    for (const auto& f : functions) {
      if (!names.insert(f.name).second) throw ValueError("saved_model::save('" + dir + "'): two functions are named '" + f.name + "'");
      if (f.signatures.empty())
        throw ValueError("saved_model::save('" + dir + "'): function '" + f.name +
                         "' has no signature: call it once (a trace) or give it an input_signature");
      json entries = json::array();
      for (std::size_t k = 0; k < f.signatures.size(); ++k) {
        const std::string rel = "functions/" + file_name(f.name) + "_" + std::to_string(k) + ".onnx";
        write(tmp, rel, onnx_model_bytes(f.body, {.opset = opset, .input_signature = f.signatures[k], .name = f.name}), index);
        json inputs = json::array();
        for (const auto& s : f.signatures[k]) inputs.push_back(s.to_string());
        entries.push_back({{"file", rel}, {"inputs", inputs}});
      }
      index["functions"][f.name] = entries;
    }
    for (const auto& v : vars) index["variables"].push_back({{"path", v.path()}, {"trainable", v.trainable()}});
    write(tmp, "variables.onnx", variables_graph(vars, opset), index);
    std::ofstream out(tmp / "saved_model.json", std::ios::trunc);
    out << index.dump(2);
    out.close();
    if (!out) throw IOError("saved_model::save: could not write '" + (tmp / "saved_model.json").string() + "'");
  });
}

}  // namespace

void save(const Module& module, const std::string& dir, const SaveOptions& options) {
  save_all(module.variables(), options.functions, dir, options.opset);
}

void save(Model& model, const std::string& dir, const SaveOptions& options) {
  std::vector<SavedFunction> functions = options.functions;
  bool has_serve = false;
  for (const auto& f : functions) has_serve = has_serve || f.name == "serve";
  if (!has_serve)
    functions.insert(functions.begin(), SavedFunction{"serve", io::onnx::model_body(model),
                                                      {io::onnx::model_signature(model, model.name())}});
  save_all(model.weights(), functions, dir, options.opset);
}

}  // namespace kiln::saved_model
