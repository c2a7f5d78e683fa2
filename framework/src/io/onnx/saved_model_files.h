#pragma once
// Private: how saved_model::load reads a SavedModel's files. Every file must
// lie inside the folder (no "..", no symbolic link on the way), and matches
// the SHA-256 its index records.
#include <filesystem>
#include <map>
#include <string>

namespace kiln::saved_model {

class SavedFiles {
 public:
  explicit SavedFiles(std::filesystem::path root) : root_(std::move(root)) {}
  /// The bytes of `rel` (a path inside the folder). Throws IOError naming the
  /// file if it is missing, a symbolic link, outside the folder, or (when
  /// checksums were set) does not match its recorded SHA-256.
  std::string read(const std::string& rel) const;
  /// From the index's "files" (version 2 on). Without them, as in version 1, files are not checked.
  void set_checksums(std::map<std::string, std::string> sums) {
    sums_ = std::move(sums);
    checked_ = true;
  }
  std::string path(const std::string& rel) const { return (root_ / rel).string(); }

 private:
  std::filesystem::path root_;
  std::map<std::string, std::string> sums_;
  bool checked_ = false;
};

}  // namespace kiln::saved_model
