// The .keras zip archive (Keras 3 saving_lib): metadata.json, config.json and
// model.weights.h5, each ZIP_STORED like Python's zipfile defaults.
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/json_errors.h"
#include "io/atomic_file.h"
#include "io/hdf5_sandbox.h"
#include "io/saving_impl.h"
#include "io/zip_reader.h"
#include "kiln/nn/layer_assets.h"
#include "io/zip_writer.h"
#include "kiln/core/error.h"

namespace kiln::io {

namespace {

std::string date_saved() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d@%H:%M:%S", &tm);  // Keras's format
  return buf;
}

Config parse_member(const ZipReader& zip, const std::string& member) {
  if (!zip.contains(member))
    throw IOError(zip.path() + ": not a valid .keras archive: no '" + member + "' member (members: " + [&] {
      std::string s;
      for (const auto& n : zip.names()) s += (s.empty() ? "" : ", ") + n;
      return s.empty() ? std::string("none") : s;
    }() + ")");
  // Keras limits member sizes too (zip-bomb checks); a config is small.
  if (zip.size(member) > (uint64_t{256} << 20))
    throw IOError(zip.path() + "[" + member + "]: implausibly large (" + std::to_string(zip.size(member)) + " bytes)");
  const auto bytes = zip.extract(member);
  try {
    return parse_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  } catch (const nlohmann::json::exception& e) {
    throw IOError(zip.path() + "[" + member + "]: " + detail::json_error_text(e));
  }
}

// Keras's _load_state hands each layer its folder assets/<store path>/ (the weights'
// path): an adapted lookup layer's vocabulary.txt, for one.
void load_assets(const ZipReader& zip, const Model& model) {
  const auto names = zip.names();
  for (const LayerStore& s : layer_stores(model)) {
    auto* target = dynamic_cast<LayerAssets*>(const_cast<Layer*>(s.layer));
    if (!target) continue;
    const std::string folder = "assets/" + s.path + "/";
    AssetFiles files;
    for (const std::string& n : names) {
      if (n.size() <= folder.size() || n.compare(0, folder.size(), folder) != 0) continue;
      const std::string file = n.substr(folder.size());
      if (file.find('/') != std::string::npos) continue;  // a nested layer's folder
      if (zip.size(n) > (uint64_t{256} << 20))
        throw IOError(zip.path() + "[" + n + "]: implausibly large (" + std::to_string(zip.size(n)) + " bytes)");
      const auto bytes = zip.extract(n);
      files[file] = std::string(bytes.begin(), bytes.end());
    }
    if (!files.empty()) target->load_assets(files, zip.path() + "[" + folder + "]");
  }
}

// Keras's _save_state writes each layer's save_assets files under assets/<store path>/,
// after the weights, in the walk's order.
void save_assets(ZipWriter& z, const Model& model) {
  for (const LayerStore& s : layer_stores(model)) {
    const auto* source = dynamic_cast<const LayerAssets*>(s.layer);
    if (!source) continue;
    for (const auto& [file, bytes] : source->save_assets())
      z.add("assets/" + s.path + "/" + file, bytes, std::time(nullptr));
  }
}

std::shared_ptr<Model> load_from_zip(const ZipReader& zip, bool compile, bool trusted) {
  const Config cfg = parse_member(zip, "config.json");
  if (zip.contains("metadata.json")) (void)parse_member(zip, "metadata.json");  // must at least be valid JSON
  if (!cfg.is_object()) throw IOError(zip.path() + "[config.json]: expected a JSON object");
  auto model = model_from_file_config(cfg, zip.path() + "[config.json]", /*weights_follow=*/true);
  if (compile && cfg.contains("compile_config") && cfg["compile_config"].is_object() && !cfg["compile_config"].empty()) {
    compile_from_config(*model, cfg["compile_config"], zip.path() + "[config.json]");
    // Keras's compile_from_config builds the optimizer so its variables can load.
    if (model->optimizer() && !model->optimizer()->built()) model->optimizer()->build(model->trainable_variables());
  }
  if (zip.contains("model.weights.npz"))
    throw IOError(zip.path() + ": weights stored as model.weights.npz are not supported (only model.weights.h5)");
  if (!zip.contains("model.weights.h5")) throw IOError(zip.path() + ": not a valid .keras archive: no 'model.weights.h5' member");
  H5File w = h5_from_image(zip.extract("model.weights.h5"), zip.path() + "[model.weights.h5]", trusted);
  load_state(*model, w.root(), compile, /*skip_mismatch=*/false);
  load_assets(zip, *model);
  return model;
}

}  // namespace

void save_keras_archive(const Model& m, const std::string& path) {
  const std::string config = keras3_model_object(m).dump();
  const std::string metadata = Config{{"keras_version", kKeras3Version}, {"date_saved", date_saved()}}.dump();
  std::vector<uint8_t> weights;
  {
    H5File mem = H5File::create_in_memory("model.weights.h5");
    save_state(m, mem.root(), /*include_optimizer=*/true);
    weights = mem.image();
  }
  ZipWriter z;
  z.add("metadata.json", metadata);
  z.add("config.json", config);
  z.add("model.weights.h5", weights, std::time(nullptr));
  save_assets(z, m);
  atomic_write_bytes(path, z.finish());
}

std::shared_ptr<Model> load_keras_archive(const std::string& path, bool compile, bool trusted) {
  ZipReader zip(path);
  return load_from_zip(zip, compile, trusted);
}

std::shared_ptr<Model> load_keras_archive_bytes(std::vector<uint8_t> bytes, const std::string& name, bool compile,
                                                bool trusted) {
  ZipReader zip(std::move(bytes), name);
  return load_from_zip(zip, compile, trusted);
}

}  // namespace kiln::io
