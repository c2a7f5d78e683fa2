#include "io/hdf5_file.h"

#include <hdf5.h>

#include <algorithm>
#include <cstring>

#include "io/hdf5_internal.h"
#include "io/hdf5_snapshot.h"
#include "kiln/core/error.h"

namespace kiln::io {

using h5::checked_elems;
using h5::fail;
using h5::init_hdf5;
using h5::space_dims;

namespace {
herr_t collect_attr(hid_t, const char* name, const H5A_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->push_back(name);
  return 0;
}
}  // namespace

bool H5Group::has_attr(const std::string& name) const {
  if (node_) return node_->attrs.count(name) > 0;
  htri_t e = H5Aexists(id(), name.c_str());
  if (e < 0) H5Eclear2(H5E_DEFAULT);
  return e > 0;
}

std::vector<std::string> H5Group::attr_names() const {
  std::vector<std::string> out;
  if (node_) {
    for (const auto& [name, a] : node_->attrs) out.push_back(name);
    return out;
  }
  hsize_t idx = 0;
  if (H5Aiterate2(id(), H5_INDEX_NAME, H5_ITER_INC, &idx, collect_attr, &out) < 0)
    fail(where(), "cannot list the attributes");
  return out;
}

H5AttrInfo H5Group::attr_info(const std::string& name) const {
  const std::string w = where() + " attribute '" + name + "'";
  if (node_) {
    auto it = node_->attrs.find(name);
    if (it == node_->attrs.end()) fail(w, "missing");
    if (!it->second.info_error.empty()) throw IOError(it->second.info_error);
    return it->second.info;
  }
  H5Id a(H5Aopen(id(), name.c_str(), H5P_DEFAULT));
  if (!a.valid()) fail(w, "missing");
  H5Id type(H5Aget_type(a.get()));
  H5Id space(H5Aget_space(a.get()));
  if (!type.valid() || !space.valid()) fail(w, "cannot read its type");
  H5AttrInfo info;
  info.type_class = static_cast<int>(H5Tget_class(type.get()));
  info.is_string = info.type_class == H5T_STRING;
  if (info.is_string) {
    info.variable_length = H5Tis_variable_str(type.get()) > 0;
    info.utf8 = H5Tget_cset(type.get()) == H5T_CSET_UTF8;
  }
  info.element_size = H5Tget_size(type.get());
  for (hsize_t d : space_dims(space.get(), w)) info.dims.push_back(static_cast<int64_t>(d));
  return info;
}

namespace h5 {
std::vector<std::string> read_string_attr(hid_t loc, const std::string& name, const std::string& w,
                                          uint64_t file_bytes) {
  H5Id a(H5Aopen(loc, name.c_str(), H5P_DEFAULT));
  if (!a.valid()) fail(w, "missing");
  H5Id type(H5Aget_type(a.get()));
  H5Id space(H5Aget_space(a.get()));
  if (!type.valid() || !space.valid()) fail(w, "cannot read its type");
  const H5T_class_t cls = H5Tget_class(type.get());
  const std::vector<hsize_t> dims = space_dims(space.get(), w);
  if (dims.size() > 1) fail(w, "expected a scalar or 1-D string attribute, got rank " + std::to_string(dims.size()));
  const hssize_t npoints = H5Sget_simple_extent_npoints(space.get());
  if (npoints < 0) fail(w, "cannot read its dataspace");
  const std::size_t n = static_cast<std::size_t>(npoints);
  if (cls != H5T_STRING) {
    // h5py writes an empty Python list as a float64 array of shape (0,).
    if (n == 0) return {};
    fail(w, "expected a string attribute, got HDF5 type class " + std::to_string(static_cast<int>(cls)));
  }
  std::vector<std::string> out;
  if (n == 0) return out;
  if (H5Tis_variable_str(type.get()) > 0) {
    checked_elems({static_cast<hsize_t>(n)}, sizeof(char*), file_bytes, w);
    H5Id mem(H5Tcopy(H5T_C_S1));
    H5Tset_size(mem.get(), H5T_VARIABLE);
    H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
    std::vector<char*> buf(n, nullptr);
    if (H5Aread(a.get(), mem.get(), buf.data()) < 0) fail(w, "cannot read the strings");
    for (char* s : buf) out.emplace_back(s ? s : "");
    H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, buf.data());
  } else {
    const std::size_t size = H5Tget_size(type.get());
    if (size == 0) fail(w, "string type has size 0");
    checked_elems({static_cast<hsize_t>(n)}, size, file_bytes, w);
    H5Id mem(H5Tcopy(type.get()));
    std::vector<char> buf(n * size, 0);
    if (H5Aread(a.get(), mem.get(), buf.data()) < 0) fail(w, "cannot read the strings");
    for (std::size_t i = 0; i < n; ++i) {
      const char* p = buf.data() + i * size;
      // NULLPAD pads short names with \0 and leaves the longest unterminated;
      // NULLTERM and SPACEPAD are cut the same way (SPACEPAD trailing spaces too).
      std::size_t len = 0;
      while (len < size && p[len] != '\0') ++len;
      std::string s(p, len);
      if (H5Tget_strpad(type.get()) == H5T_STR_SPACEPAD)
        while (!s.empty() && s.back() == ' ') s.pop_back();
      out.push_back(std::move(s));
    }
  }
  return out;
}
}  // namespace h5

using h5::read_string_attr;

std::vector<std::string> H5Group::read_attr_strings(const std::string& name) const {
  const std::string w = where() + " attribute '" + name + "'";
  if (node_) {
    auto it = node_->attrs.find(name);
    if (it == node_->attrs.end()) fail(w, "missing");
    if (!it->second.error.empty()) throw IOError(it->second.error);
    return it->second.strings;
  }
  return read_string_attr(id(), name, w, file_->bytes);
}

std::optional<std::vector<std::string>> H5Group::attr_strings_opt(const std::string& name) const {
  init_hdf5();
  if (has_attr(name)) return read_attr_strings(name);
  // Keras's save_attributes_to_hdf5_group splits long lists into name0, name1, ...
  if (!has_attr(name + "0")) return std::nullopt;
  std::vector<std::string> all;
  for (int k = 0; has_attr(name + std::to_string(k)); ++k) {
    auto part = read_attr_strings(name + std::to_string(k));
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

std::vector<std::string> H5Group::attr_strings(const std::string& name) const {
  auto v = attr_strings_opt(name);
  if (!v) fail(where(), "missing attribute '" + name + "'");
  return *v;
}

std::optional<std::string> H5Group::attr_string_opt(const std::string& name) const {
  init_hdf5();
  if (!has_attr(name)) return std::nullopt;
  const std::string w = where() + " attribute '" + name + "'";
  auto v = read_attr_strings(name);
  if (v.size() != 1) fail(w, "expected one string, got " + std::to_string(v.size()));
  return v[0];
}

std::string H5Group::attr_string(const std::string& name) const {
  auto v = attr_string_opt(name);
  if (!v) fail(where(), "missing attribute '" + name + "'");
  return *v;
}

void H5Group::set_attr(const std::string& name, const std::string& value, StrEncoding enc) {
  require_live("write an attribute");
  init_hdf5();
  const std::string w = where() + " attribute '" + name + "'";
  if (has_attr(name) && H5Adelete(id(), name.c_str()) < 0) fail(w, "cannot replace it");
  H5Id type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), enc == StrEncoding::utf8 ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
  H5Id space(H5Screate(H5S_SCALAR));
  H5Id a(H5Acreate2(id(), name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!a.valid()) fail(w, "cannot create it");
  const char* p = value.c_str();
  if (H5Awrite(a.get(), type.get(), &p) < 0) fail(w, "cannot write it");
}

void H5Group::set_attr_strings(const std::string& name, const std::vector<std::string>& values) {
  require_live("write an attribute");
  init_hdf5();
  const std::string w = where() + " attribute '" + name + "'";
  for (const auto& old : attr_names())
    if (old == name || (old.rfind(name, 0) == 0 && old.size() > name.size() &&
                        std::all_of(old.begin() + static_cast<std::ptrdiff_t>(name.size()), old.end(),
                                    [](char c) { return c >= '0' && c <= '9'; })))
      H5Adelete(id(), old.c_str());
  if (values.empty()) {
    // What h5py writes for `attrs[name] = []`: float64, shape (0,).
    hsize_t d = 0;
    H5Id space(H5Screate_simple(1, &d, nullptr));
    H5Id a(H5Acreate2(id(), name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT));
    if (!a.valid()) fail(w, "cannot create it");
    return;
  }
  // Keras splits when numpy's fixed-width array (n * longest) exceeds the
  // object-header limit, and then writes each chunk as a fixed-width array.
  constexpr std::size_t kLimit = 64512;
  std::size_t longest = 1;
  for (const auto& v : values) longest = std::max(longest, v.size());
  const std::size_t n = values.size();
  if (n * longest <= kLimit) {
    H5Id type(H5Tcopy(H5T_C_S1));
    H5Tset_size(type.get(), H5T_VARIABLE);
    H5Tset_cset(type.get(), H5T_CSET_ASCII);
    hsize_t d = n;
    H5Id space(H5Screate_simple(1, &d, nullptr));
    H5Id a(H5Acreate2(id(), name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
    if (!a.valid()) fail(w, "cannot create it");
    std::vector<const char*> ptrs;
    for (const auto& v : values) ptrs.push_back(v.c_str());
    if (H5Awrite(a.get(), type.get(), ptrs.data()) < 0) fail(w, "cannot write it");
    return;
  }
  if (longest > kLimit) fail(w, "one name is longer than the HDF5 object header limit (" + std::to_string(kLimit) + ")");
  std::size_t chunks = 1;
  auto chunk_len = [&](std::size_t k, std::size_t i) { return n / k + (i < n % k ? 1 : 0); };
  while (chunk_len(chunks, 0) * longest > kLimit) ++chunks;  // np.array_split: the first chunks are the longest
  H5Id type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), longest);
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  std::size_t start = 0;
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t len = chunk_len(chunks, c);
    std::vector<char> buf(len * longest, 0);
    for (std::size_t i = 0; i < len; ++i) std::memcpy(buf.data() + i * longest, values[start + i].data(), values[start + i].size());
    hsize_t d = len;
    H5Id space(H5Screate_simple(1, &d, nullptr));
    const std::string cname = name + std::to_string(c);
    H5Id a(H5Acreate2(id(), cname.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
    if (!a.valid() || H5Awrite(a.get(), type.get(), buf.data()) < 0) fail(w, "cannot write chunk " + cname);
    start += len;
  }
}

}  // namespace kiln::io
