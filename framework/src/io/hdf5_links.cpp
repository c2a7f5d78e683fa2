// H5Group's links (hdf5_file.h): whether a member exists and what it is, the
// member list, and opening subgroups, on a live file or a snapshot.
#include <hdf5.h>

#include <string>
#include <vector>

#include "io/hdf5_file.h"
#include "io/hdf5_internal.h"
#include "io/hdf5_snapshot.h"
#include "kiln/core/error.h"

namespace kiln::io {

using h5::fail;
using h5::init_hdf5;
using h5::join_path;

bool H5Group::exists(const std::string& rel) const {
  if (node_) return snap_find(rel) != nullptr;
  auto parts = h5::split_path(rel);
  if (parts.empty()) return true;
  std::string prefix;
  for (const auto& p : parts) {
    prefix = prefix.empty() ? p : prefix + "/" + p;
    htri_t e = H5Lexists(id(), prefix.c_str(), H5P_DEFAULT);
    if (e <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
  }
  htri_t o = H5Oexists_by_name(id(), rel.c_str(), H5P_DEFAULT);
  H5Eclear2(H5E_DEFAULT);
  return o > 0;
}

namespace {
H5I_type_t object_type(hid_t loc, const std::string& rel) {
  hid_t o = H5Oopen(loc, rel.c_str(), H5P_DEFAULT);
  if (o < 0) {
    H5Eclear2(H5E_DEFAULT);
    return H5I_BADID;
  }
  H5I_type_t t = H5Iget_type(o);
  H5Oclose(o);
  return t;
}
}  // namespace

bool H5Group::is_group(const std::string& rel) const {
  if (node_) {
    const H5SnapshotNode* n = snap_find(rel);
    return n && !n->is_dataset;
  }
  return exists(rel) && object_type(id(), rel) == H5I_GROUP;
}
bool H5Group::is_dataset(const std::string& rel) const {
  if (node_) {
    const H5SnapshotNode* n = snap_find(rel);
    return n && n->is_dataset;
  }
  return exists(rel) && object_type(id(), rel) == H5I_DATASET;
}

H5Group::Kind H5Group::member_kind(const std::string& name) const {
  if (node_) {
    const H5SnapshotNode* n = snap_find(name);
    return !n ? Kind::none : n->is_dataset ? Kind::dataset : Kind::group;
  }
  init_hdf5();
  // The object header's basic fields, without opening the object (an
  // H5Oopen registers an identifier, and closing it costs as much again).
  H5O_info_t info{};
  if (H5Oget_info_by_name2(id(), name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
    H5Eclear2(H5E_DEFAULT);
    return Kind::none;
  }
  return info.type == H5O_TYPE_GROUP ? Kind::group : info.type == H5O_TYPE_DATASET ? Kind::dataset : Kind::none;
}

H5Group H5Group::group(const std::string& rel) const {
  init_hdf5();
  if (!node_) {
    // Opened first, and checked only when that fails, to say why.
    if (hid_t g = H5Gopen2(id(), rel.c_str(), H5P_DEFAULT); g >= 0) return H5Group(H5Id(g), file_, join_path(path_, rel));
    H5Eclear2(H5E_DEFAULT);
  }
  if (!exists(rel)) fail(where(rel), "no such group in the file");
  if (!is_group(rel)) fail(where(rel), "is not a group");
  if (!node_) fail(where(rel), "cannot open the group");
  return H5Group(std::shared_ptr<const H5SnapshotNode>(node_, snap_find(rel)), file_, join_path(path_, rel));
}

H5Group H5Group::require_group(const std::string& rel) {
  require_live("create a group");
  init_hdf5();
  if (exists(rel)) return group(rel);
  H5Id lcpl(H5Pcreate(H5P_LINK_CREATE));
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  hid_t g = H5Gcreate2(id(), rel.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) fail(where(rel), "cannot create the group");
  return H5Group(H5Id(g), file_, join_path(path_, rel));
}

namespace {
herr_t collect_link(hid_t, const char* name, const H5L_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->push_back(name);
  return 0;
}
}  // namespace

std::vector<std::string> H5Group::keys() const {
  std::vector<std::string> out;
  if (node_) {
    for (const auto& [name, member] : node_->members) out.push_back(name);
    return out;
  }
  hsize_t idx = 0;
  if (H5Literate(id(), H5_INDEX_NAME, H5_ITER_INC, &idx, collect_link, &out) < 0)
    fail(where(), "cannot list the group's members");
  return out;
}

}  // namespace kiln::io
