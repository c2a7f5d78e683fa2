// Public entry points: Model::save / save_weights / load_weights and
// kiln::models::load_model / model_from_json. Formats are routed by file name
// when writing (as Keras) and by content when reading, so a misnamed file
// still loads or fails with a message saying what it really is.
#include "kiln/io/saving.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/json_errors.h"
#include "io/atomic_file.h"
#include "io/hdf5_sandbox.h"
#include "io/saving_impl.h"
#include "io/zip_reader.h"
#include "kiln/core/error.h"

namespace kiln {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
  return true;
}

enum class Kind { zip, hdf5, json, empty, other };

Kind sniff(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st)) throw IOError(path + ": no such file");
  if (std::filesystem::is_directory(st))
    throw IOError(path + ": is a directory, not a model file: expected a .keras zip archive or an HDF5 (.h5) file "
                         "(a TensorFlow SavedModel directory cannot be loaded)");
  auto head = io::read_file_head(path, 8);
  if (head.empty()) {
    const int err = errno;
    if (std::filesystem::file_size(path, ec) != 0 || ec)
      throw IOError(path + ": cannot read the file: " + std::strerror(err));
    return Kind::empty;
  }
  if (head.size() >= 4 && head[0] == 'P' && head[1] == 'K' && head[2] == 3 && head[3] == 4) return Kind::zip;
  if (head.size() >= 4 && head[0] == 'P' && head[1] == 'K' && head[2] == 5 && head[3] == 6) return Kind::zip;
  if (io::looks_like_hdf5(head)) return Kind::hdf5;
  std::size_t i = 0;
  while (i < head.size() && std::isspace(head[i])) ++i;
  if (i < head.size() && head[i] == '{') return Kind::json;
  return Kind::other;
}

[[noreturn]] void unknown_format(const std::string& path, Kind k) {
  if (k == Kind::empty) throw IOError(path + ": the file is empty (0 bytes): not a .keras or .h5 model file");
  if (k == Kind::json)
    throw IOError(path + ": this is a JSON file, not a saved model: use kiln::models::model_from_json_file");
  throw IOError(path + ": unknown file format: expected a .keras zip archive or an HDF5 (.h5) file");
}

void add_custom_objects(const models::LoadModelOptions& o) {
  for (const auto& [name, f] : o.custom_objects)
    if (!is_layer_class_registered(name)) register_layer_class(name, f);
}

}  // namespace

void Model::save(const std::string& path) const {
  if (ends_with(path, ".keras")) return io::save_keras_archive(*this, path);
  if (ends_with(path, ".h5") || ends_with(path, ".hdf5")) return io::save_legacy_model(*this, path, true);
  throw ValueError("Model.save: invalid filepath extension for saving '" + path +
                   "'. Please add either a `.keras` extension for the native Keras format (recommended) or a `.h5` "
                   "extension.");
}

void Model::save_weights(const std::string& path) const {
  if (ends_with(path, ".weights.h5")) {
    io::atomic_write(path, [&](const std::string& tmp) {
      io::H5File f = io::H5File::create(tmp);
      io::save_state(*this, f.root(), /*include_optimizer=*/true);  // Keras saves the optimizer too
      f.close();
    });
    return;
  }
  if (ends_with(path, ".h5") || ends_with(path, ".hdf5")) {
    io::atomic_write(path, [&](const std::string& tmp) {
      io::H5File f = io::H5File::create(tmp);
      io::save_legacy_weights(*this, f.root());
      f.close();
    });
    return;
  }
  throw ValueError("Model.save_weights: the filename must end in `.weights.h5` (Keras 3 layout) or `.h5` (legacy "
                   "layout). Received: filepath=" + path);
}

void Model::load_weights(const std::string& path, LoadWeightsOptions options) {
  const Kind k = sniff(path);
  if (k == Kind::zip) {
    if (options.by_name) throw ValueError(path + ": by_name is only supported for legacy .h5 weight files");
    io::ZipReader zip(path);
    if (!zip.contains("model.weights.h5")) throw IOError(path + ": not a .keras archive: no 'model.weights.h5' member");
    io::H5File w = io::h5_from_image(zip.extract("model.weights.h5"), path + "[model.weights.h5]", options.trusted);
    io::load_state(*this, w.root(), compiled(), options.skip_mismatch);
    return;
  }
  if (k != Kind::hdf5) unknown_format(path, k);
  io::H5File f = io::open_h5(path, options.trusted);
  io::H5Group root = f.root();
  if (root.is_group("layers") || root.is_group("vars") || root.is_group("_layer_checkpoint_dependencies")) {
    if (options.by_name)
      throw ValueError(path + ": by_name is not supported for Keras 3 .weights.h5 files (they are matched by "
                              "structure); it applies to legacy .h5 files");
    io::load_state(*this, root, compiled(), options.skip_mismatch);
    return;
  }
  io::LegacyLoadOptions lo;
  lo.by_name = options.by_name;
  lo.skip_mismatch = options.skip_mismatch;
  if (root.has_attr("layer_names") || root.has_attr("layer_names0")) return io::load_legacy_weights(*this, root, lo);
  if (root.is_group("model_weights")) {
    if (auto mc = root.attr_string_opt("model_config")) {
      try {
        lo.assume_theano = io::uses_channels_first(parse_json(*mc));
      } catch (const nlohmann::json::exception&) {
      }
    }
    return io::load_legacy_weights(*this, root.group("model_weights"), lo);
  }
  throw IOError(path + ": not a Keras weights file: no /layers group (Keras 3) and no layer_names or /model_weights "
                       "(legacy)");
}

namespace models {

std::shared_ptr<Model> load_model(const std::string& path, LoadModelOptions options) {
  add_custom_objects(options);
  const Kind k = sniff(path);
  if (k == Kind::zip) return io::load_keras_archive(path, options.compile, options.trusted);
  if (k == Kind::hdf5) return io::load_legacy_model(path, options.compile, options.trusted);
  unknown_format(path, k);
}

std::shared_ptr<Model> model_from_json(const std::string& json, LoadModelOptions options) {
  add_custom_objects(options);
  Config c;
  try {
    c = parse_json(json);
  } catch (const nlohmann::json::exception& e) {
    throw ValueError("model_from_json: " + detail::json_error_text(e));
  }
  return io::model_from_file_config(c, "model_from_json");
}

std::shared_ptr<Model> model_from_json_file(const std::string& path, LoadModelOptions options) {
  add_custom_objects(options);
  const auto bytes = io::read_file_bytes(path);
  Config c;
  try {
    c = parse_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  } catch (const nlohmann::json::exception& e) {
    throw IOError(path + ": " + detail::json_error_text(e));
  }
  return io::model_from_file_config(c, path);
}

std::string to_json(const Model& model) {
  Config c = io::keras2_model_config(model);
  c["keras_version"] = io::kKeras2Version;
  c["backend"] = "tensorflow";
  return c.dump();
}

}  // namespace models
}  // namespace kiln
