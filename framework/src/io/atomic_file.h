#pragma once
// Private (framework/src/io): crash-safe file replacement. Every save goes to a
// temporary file in the destination's folder (same file system, so the rename
// is atomic), is fsync'ed, then renamed over the destination, and the folder
// is fsync'ed so the rename itself survives a crash. A process killed at any
// point leaves either the old file or the new one, never a torn file.
//
//   kiln::io::atomic_write("model.h5", [&](const std::string& tmp) { write_h5(tmp); });
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kiln::io {

/// Calls `write(tmp_path)`, then syncs and renames tmp_path to `path`. If
/// `write` throws, the temporary file is removed and the exception propagates;
/// `path` is untouched. Throws IOError naming `path` if its folder is missing
/// or the rename fails.
void atomic_write(const std::string& path, const std::function<void(const std::string& tmp_path)>& write);
/// Removes temporary files that earlier saves to `path` left behind when their
/// process was killed: ".<name>.tmp-<pid>-<n>" in the same folder, whose pid
/// is no live process (or is this process, and no save of it is in progress);
/// files and folders (a SavedModel's) alike.
/// atomic_write calls it before every save.
void remove_stale_temp_files(const std::string& path);
/// A fresh temporary path next to `path` (".<name>.tmp-<pid>-<n>"), counted as
/// a save in progress while this object lives, so remove_stale_temp_files
/// leaves it alone; after a kill it is stale and the next save removes it.
class TempPath {
 public:
  explicit TempPath(const std::string& target);
  ~TempPath();
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};
/// fsync()s a file (throws IOError if that fails) or a folder (best effort:
/// some file systems cannot open or sync folders).
void fsync_path(const std::string& path, bool directory);
/// Writes `bytes` to `path` atomically.
void atomic_write_bytes(const std::string& path, const std::vector<uint8_t>& bytes);
/// The whole file; throws IOError naming the path if missing or unreadable.
std::vector<uint8_t> read_file_bytes(const std::string& path);
/// The first `n` bytes of a file (fewer if it is shorter).
std::vector<uint8_t> read_file_head(const std::string& path, std::size_t n);

}  // namespace kiln::io
