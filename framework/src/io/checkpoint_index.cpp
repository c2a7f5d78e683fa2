// CheckpointManager, the folder's "checkpoint" index, latest_checkpoint and
// list_variables (kiln/io/checkpoint.h).
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/json_errors.h"
#include "io/atomic_file.h"
#include "io/checkpoint_index.h"
#include "io/hdf5_file.h"
#include "io/hdf5_sandbox.h"
#include "kiln/core/error.h"
#include "kiln/io/checkpoint.h"

namespace kiln {

namespace fs = std::filesystem;

namespace io {

namespace {
std::string index_path(const std::string& dir) { return (fs::path(dir) / "checkpoint").string(); }

/// Whether an index entry names a file. Entries come from the file, so a name
/// the system rejects (too long, say) is one that is not there, not an exception.
bool names_file(const std::string& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

/// An index entry as a path: relative to the folder (TensorFlow's form), else as recorded.
std::string resolve(const std::string& dir, const std::string& entry) {
  const fs::path p(entry);
  if (entry.empty() || p.is_absolute()) return entry;
  const std::string in_dir = (fs::path(dir) / p).string();
  std::error_code ec;
  if (fs::exists(in_dir, ec)) return in_dir;
  return entry;  // a working-folder-relative entry from an older index
}
}  // namespace

std::vector<std::string> read_checkpoint_index(const std::string& dir) {
  const std::string idx = index_path(dir);
  std::vector<std::string> out;
  if (!fs::exists(idx)) return out;
  const auto bytes = read_file_bytes(idx);
  try {
    const Config j = parse_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    for (const auto& e : j.value("all_model_checkpoint_paths", Config::array()))
      if (e.is_string()) {
        const std::string p = resolve(dir, e.get<std::string>());
        if (names_file(p)) out.push_back(p);
      }
    // The latest entry comes last even when an older writer listed it elsewhere.
    const std::string latest = resolve(dir, j.value("model_checkpoint_path", ""));
    if (names_file(latest)) {
      out.erase(std::remove(out.begin(), out.end(), latest), out.end());
      out.push_back(latest);
    }
  } catch (const nlohmann::json::exception& e) {
    throw IOError(idx + ": corrupt checkpoint index: " + detail::json_error_text(e));
  }
  return out;
}

void write_checkpoint_index(const std::string& dir, const std::vector<std::string>& paths) {
  const fs::path folder = fs::absolute(dir).lexically_normal();
  auto entry = [&](const std::string& p) {
    const fs::path abs = fs::absolute(p).lexically_normal();
    return abs.parent_path() == folder ? abs.filename().string() : abs.string();
  };
  Config all = Config::array();
  for (const auto& p : paths) all.push_back(entry(p));
  Config j = {{"model_checkpoint_path", paths.empty() ? "" : entry(paths.back())}, {"all_model_checkpoint_paths", all}};
  const std::string text = j.dump(1);
  atomic_write_bytes(index_path(dir), std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace io


CheckpointManager::CheckpointManager(Checkpoint checkpoint, std::string directory, CheckpointManagerOptions options)
    : checkpoint_(std::move(checkpoint)), directory_(std::move(directory)), options_(std::move(options)) {
  if (options_.max_to_keep && *options_.max_to_keep < 1)
    throw ValueError("CheckpointManager: max_to_keep must be >= 1 (or nullopt to keep all), got " +
                     std::to_string(*options_.max_to_keep));
  std::error_code ec;
  fs::create_directories(directory_, ec);
  if (!fs::is_directory(directory_)) throw IOError(directory_ + ": cannot create the checkpoint folder");
  checkpoints_ = io::read_checkpoint_index(directory_);  // what a previous run recorded (and still exists)
}

std::string CheckpointManager::save(std::optional<int64_t> checkpoint_number) {
  const std::string prefix = (fs::path(directory_) / options_.checkpoint_name).string();
  std::string path;
  if (checkpoint_number) {
    path = checkpoint_.write(prefix + "-" + std::to_string(*checkpoint_number) + ".h5");
  } else {
    path = checkpoint_.save(prefix);
  }
  checkpoints_.erase(std::remove(checkpoints_.begin(), checkpoints_.end(), path), checkpoints_.end());
  checkpoints_.push_back(path);
  if (options_.max_to_keep)
    while (checkpoints_.size() > static_cast<std::size_t>(*options_.max_to_keep)) {
      std::error_code ec;
      fs::remove(checkpoints_.front(), ec);
      checkpoints_.erase(checkpoints_.begin());
    }
  write_index();
  return path;
}

void CheckpointManager::write_index() const { io::write_checkpoint_index(directory_, checkpoints_); }

std::string CheckpointManager::latest_checkpoint() const { return checkpoints_.empty() ? "" : checkpoints_.back(); }

std::string CheckpointManager::restore_or_initialize() {
  const std::string p = latest_checkpoint();
  if (!p.empty()) checkpoint_.restore(p);
  return p;
}

namespace checkpoint {

std::string latest_checkpoint(const std::string& directory) {
  const auto paths = io::read_checkpoint_index(directory);
  return paths.empty() ? "" : paths.back();
}

std::vector<VariableInfo> list_variables(const std::string& path) {
  io::H5File f = io::open_h5(path, /*trusted=*/false);
  io::H5Group root = f.root();
  if (!root.has_attr("kiln_checkpoint"))
    throw IOError(path + ": not a Kiln checkpoint (no kiln_checkpoint attribute)");
  std::vector<VariableInfo> out;
  std::vector<std::string> todo{""};
  while (!todo.empty()) {
    const std::string g = todo.back();
    todo.pop_back();
    for (const auto& k : (g.empty() ? root : root.group(g)).keys()) {
      const std::string name = g.empty() ? k : g + "/" + k;
      if (root.is_group(name)) todo.push_back(name);
      else out.push_back({name, root.dataset_shape(name)});
    }
  }
  std::sort(out.begin(), out.end(), [](const VariableInfo& a, const VariableInfo& b) { return a.name < b.name; });
  return out;
}

}  // namespace checkpoint

}  // namespace kiln
