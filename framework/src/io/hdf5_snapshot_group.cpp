// The snapshot side of H5Group and H5File (hdf5_snapshot.h): lookups by path
// and the errors a live file would give for what is missing.
#include "io/hdf5_file.h"
#include "io/hdf5_internal.h"
#include "io/hdf5_snapshot.h"
#include "kiln/core/error.h"

namespace kiln::io {

H5Group::H5Group(std::shared_ptr<const H5SnapshotNode> node, std::shared_ptr<const FileInfo> file, std::string path)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {}

const H5SnapshotNode* H5Group::snap_find(const std::string& rel) const {
  const H5SnapshotNode* n = node_.get();
  for (const auto& part : h5::split_path(rel)) {
    if (n->is_dataset) return nullptr;
    auto it = n->members.find(part);
    if (it == n->members.end()) return nullptr;
    n = it->second.get();
  }
  return n;
}

const H5SnapshotNode& H5Group::snap_dataset(const std::string& rel) const {
  const H5SnapshotNode* n = snap_find(rel);
  if (!n) h5::fail(where(rel), "no such dataset in the file");
  if (!n->is_dataset) h5::fail(where(rel), "is not a readable dataset");
  return *n;
}

void H5Group::require_live(const char* op) const {
  if (node_) throw IOError(where() + ": cannot " + op + ": the file was opened read-only from a sandboxed snapshot");
}

H5File H5File::from_snapshot(std::shared_ptr<const H5SnapshotNode> root, const std::string& name, uint64_t bytes) {
  H5File f;
  f.info_ = std::make_shared<H5Group::FileInfo>(H5Group::FileInfo{name, bytes});
  f.root_ = H5Group(std::move(root), f.info_, "/");
  return f;
}

}  // namespace kiln::io
