#include "io/hdf5_file.h"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <mutex>
#include <numeric>

#include "kiln/core/error.h"

namespace kiln::io {

namespace {

// HDF5 prints its whole error stack to stderr on every failed call unless the
// automatic handler is turned off; we report failures as exceptions instead.
void init_hdf5() {
  static std::once_flag once;
  std::call_once(once, [] {
    H5open();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  });
}

herr_t walk_cb(unsigned n, const H5E_error2_t* e, void* data) {
  auto* out = static_cast<std::string*>(data);
  if (n == 0 && e && e->desc) *out = e->desc;  // the innermost (first) entry says what really failed
  return 0;
}

/// The innermost message of HDF5's error stack (then clears it).
std::string h5_reason() {
  std::string r;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, &r);
  H5Eclear2(H5E_DEFAULT);
  return r.empty() ? std::string() : " (HDF5: " + r + ")";
}

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw IOError(where + ": " + what + h5_reason());
}

std::string join_path(const std::string& base, const std::string& rel) {
  if (base == "/" || base.empty()) return "/" + rel;
  return base + "/" + rel;
}

/// Splits "a/b/c" into components (empty ones dropped).
std::vector<std::string> split(const std::string& rel) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : rel) {
    if (c == '/') {
      if (!cur.empty()) parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  return parts;
}

// Refuse to allocate more than this for one dataset or attribute, whatever a
// (possibly corrupt) header claims; real Keras weights are far below it.
constexpr uint64_t kMaxBytes = uint64_t{8} << 30;

std::size_t checked_elems(const std::vector<hsize_t>& dims, std::size_t elem, uint64_t file_bytes,
                          const std::string& where) {
  uint64_t n = 1;
  for (hsize_t d : dims) {
    if (d != 0 && n > kMaxBytes / d) fail(where, "dataspace is too large");
    n *= d;
  }
  if (elem != 0 && n > kMaxBytes / elem) fail(where, "dataspace is too large");
  // A contiguous uncompressed dataset cannot hold more bytes than the file;
  // allow generous slack for compressed/fill-value datasets.
  if (n * elem > file_bytes * 1024 + (uint64_t{64} << 20))
    fail(where, "claims " + std::to_string(n * elem) + " bytes of data in a " + std::to_string(file_bytes) +
                    "-byte file (corrupt file?)");
  return static_cast<std::size_t>(n);
}

std::vector<hsize_t> space_dims(hid_t space, const std::string& where) {
  const int nd = H5Sget_simple_extent_ndims(space);
  if (nd < 0) fail(where, "cannot read the dataspace");
  std::vector<hsize_t> dims(static_cast<std::size_t>(nd));
  if (nd > 0 && H5Sget_simple_extent_dims(space, dims.data(), nullptr) < 0) fail(where, "cannot read the dataspace");
  if (H5Sget_simple_extent_type(space) == H5S_NULL) return {0};
  return dims;
}

// HDF5 1.10's global-heap reader trusts the object sizes inside a collection:
// a corrupt size of 0 makes H5HG__cache_heap_deserialize loop forever and an
// oversized one makes H5HG_read copy out of bounds (found by fuzz/fuzz_saving).
// Variable-length strings (every Keras name and config attribute) live in
// those collections, so walk each one ourselves first, exactly as HDF5 will,
// and refuse a file whose chain of objects is broken. A collection is
// "GCOL", version 1, three zero bytes, its 8-byte size (>= 4096), then objects
// {u16 index, u16 refcount, 4 reserved, u64 size, data padded to 8}; index 0
// is the free space, whose size already includes its header.
void check_global_heaps(const std::function<bool(uint64_t off, std::size_t n, uint8_t* out)>& read, uint64_t total,
                        const std::string& name) {
  constexpr std::size_t kBlock = 1 << 20;
  std::vector<uint8_t> buf(kBlock + 3);
  auto le = [](const uint8_t* p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
  };
  for (uint64_t base = 0; base < total; base += kBlock) {
    const std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(kBlock + 3, total - base));
    if (!read(base, n, buf.data())) return;
    for (std::size_t i = 0; i + 4 <= n && i < kBlock; ++i) {
      if (buf[i] != 'G' || buf[i + 1] != 'C' || buf[i + 2] != 'O' || buf[i + 3] != 'L') continue;
      const uint64_t pos = base + i;
      uint8_t hdr[16];
      if (pos + 16 > total || !read(pos, 16, hdr)) continue;
      if (hdr[4] != 1 || hdr[5] || hdr[6] || hdr[7]) continue;  // not a collection header
      const uint64_t size = le(hdr + 8, 8);
      if (size < 4096 || size > total - pos || size > (uint64_t{1} << 32)) continue;  // HDF5 rejects these itself
      std::vector<uint8_t> col(static_cast<std::size_t>(size));
      if (!read(pos, col.size(), col.data())) continue;
      std::size_t p = 16;
      while (p < col.size()) {
        if (p + 16 > col.size()) break;  // a tail too small for a header is free space
        const uint64_t idx = le(&col[p], 2), osize = le(&col[p + 8], 8);
        const uint64_t need = idx > 0 ? (osize > col.size() ? ~uint64_t{0} : 16 + ((osize + 7) & ~uint64_t{7})) : osize;
        if (need == 0 || need > col.size() - p)
          throw IOError(name + ": corrupt HDF5 file: the global heap collection at byte " + std::to_string(pos) +
                        " has a broken object (index " + std::to_string(idx) + ", size " + std::to_string(osize) + ")");
        p += static_cast<std::size_t>(need);
      }
    }
  }
}

}  // namespace

// ---------------------------------------------------------------- H5Id

H5Id& H5Id::operator=(H5Id&& o) noexcept {
  if (this != &o) {
    reset();
    id_ = o.id_;
    o.id_ = -1;
  }
  return *this;
}
H5Id::~H5Id() { reset(); }
void H5Id::reset() {
  if (id_ >= 0) {
    H5Idec_ref(id_);
    H5Eclear2(H5E_DEFAULT);
  }
  id_ = -1;
}

bool looks_like_hdf5(const std::vector<uint8_t>& head) {
  static const uint8_t sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  return head.size() >= 8 && std::memcmp(head.data(), sig, 8) == 0;
}

// ---------------------------------------------------------------- H5Group

H5Group::H5Group(H5Id id, std::shared_ptr<const FileInfo> file, std::string path)
    : id_(std::make_shared<H5Id>(std::move(id))), file_(std::move(file)), path_(std::move(path)) {}

std::string H5Group::where() const { return file_->name + ":" + path_; }
std::string H5Group::where(const std::string& child) const { return file_->name + ":" + join_path(path_, child); }

bool H5Group::exists(const std::string& rel) const {
  auto parts = split(rel);
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

bool H5Group::is_group(const std::string& rel) const { return exists(rel) && object_type(id(), rel) == H5I_GROUP; }
bool H5Group::is_dataset(const std::string& rel) const {
  return exists(rel) && object_type(id(), rel) == H5I_DATASET;
}

H5Group H5Group::group(const std::string& rel) const {
  init_hdf5();
  if (!exists(rel)) fail(where(rel), "no such group in the file");
  if (!is_group(rel)) fail(where(rel), "is not a group");
  hid_t g = H5Gopen2(id(), rel.c_str(), H5P_DEFAULT);
  if (g < 0) fail(where(rel), "cannot open the group");
  return H5Group(H5Id(g), file_, join_path(path_, rel));
}

H5Group H5Group::require_group(const std::string& rel) {
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
herr_t collect_attr(hid_t, const char* name, const H5A_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->push_back(name);
  return 0;
}
}  // namespace

std::vector<std::string> H5Group::keys() const {
  std::vector<std::string> out;
  hsize_t idx = 0;
  if (H5Literate(id(), H5_INDEX_NAME, H5_ITER_INC, &idx, collect_link, &out) < 0)
    fail(where(), "cannot list the group's members");
  return out;
}

bool H5Group::has_attr(const std::string& name) const {
  htri_t e = H5Aexists(id(), name.c_str());
  if (e < 0) H5Eclear2(H5E_DEFAULT);
  return e > 0;
}

std::vector<std::string> H5Group::attr_names() const {
  std::vector<std::string> out;
  hsize_t idx = 0;
  if (H5Aiterate2(id(), H5_INDEX_NAME, H5_ITER_INC, &idx, collect_attr, &out) < 0)
    fail(where(), "cannot list the attributes");
  return out;
}

H5AttrInfo H5Group::attr_info(const std::string& name) const {
  const std::string w = where() + " attribute '" + name + "'";
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

namespace {
/// Reads a string (or empty numeric) attribute as a list of strings.
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
}  // namespace

std::optional<std::vector<std::string>> H5Group::attr_strings_opt(const std::string& name) const {
  init_hdf5();
  if (has_attr(name)) return read_string_attr(id(), name, where() + " attribute '" + name + "'", file_->bytes);
  // Keras's save_attributes_to_hdf5_group splits long lists into name0, name1, ...
  if (!has_attr(name + "0")) return std::nullopt;
  std::vector<std::string> all;
  for (int k = 0; has_attr(name + std::to_string(k)); ++k) {
    auto part = read_string_attr(id(), name + std::to_string(k),
                                 where() + " attribute '" + name + std::to_string(k) + "'", file_->bytes);
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
  auto v = read_string_attr(id(), name, w, file_->bytes);
  if (v.size() != 1) fail(w, "expected one string, got " + std::to_string(v.size()));
  return v[0];
}

std::string H5Group::attr_string(const std::string& name) const {
  auto v = attr_string_opt(name);
  if (!v) fail(where(), "missing attribute '" + name + "'");
  return *v;
}

void H5Group::set_attr(const std::string& name, const std::string& value, StrEncoding enc) {
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

H5Id H5Group::open_dataset(const std::string& rel) const {
  init_hdf5();
  if (!exists(rel)) fail(where(rel), "no such dataset in the file");
  hid_t d = H5Dopen2(id(), rel.c_str(), H5P_DEFAULT);
  if (d < 0) fail(where(rel), "is not a readable dataset");
  return H5Id(d);
}

Shape H5Group::dataset_shape(const std::string& rel) const {
  H5Id d = open_dataset(rel);
  H5Id space(H5Dget_space(d.get()));
  if (!space.valid()) fail(where(rel), "cannot read the dataspace");
  std::vector<int64_t> dims;
  for (hsize_t x : space_dims(space.get(), where(rel))) dims.push_back(static_cast<int64_t>(x));
  return Shape(dims);
}

std::string H5Group::dataset_dtype(const std::string& rel) const {
  H5Id d = open_dataset(rel);
  H5Id type(H5Dget_type(d.get()));
  const H5T_class_t cls = H5Tget_class(type.get());
  const std::size_t size = H5Tget_size(type.get());
  if (cls == H5T_FLOAT) return "float" + std::to_string(size * 8);
  if (cls == H5T_INTEGER)
    return std::string(H5Tget_sign(type.get()) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(size * 8);
  if (cls == H5T_STRING) return "string";
  return "class" + std::to_string(static_cast<int>(cls));
}

Tensor H5Group::read(const std::string& rel) const {
  const std::string w = where(rel);
  H5Id d = open_dataset(rel);
  H5Id type(H5Dget_type(d.get()));
  H5Id space(H5Dget_space(d.get()));
  if (!type.valid() || !space.valid()) fail(w, "cannot read the dataset's type");
  std::vector<hsize_t> hd = space_dims(space.get(), w);
  std::vector<int64_t> dims(hd.begin(), hd.end());
  const H5T_class_t cls = H5Tget_class(type.get());
  const std::size_t fsize = H5Tget_size(type.get());
  if (cls == H5T_FLOAT) {
    if (fsize == 8) {
      std::vector<double> buf(checked_elems(hd, 8, file_->bytes, w));
      if (!buf.empty() && H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
        fail(w, "cannot read the data (truncated or corrupt file?)");
      return Tensor(buf, Shape(dims));
    }
    std::vector<float> buf(checked_elems(hd, 4, file_->bytes, w));
    if (!buf.empty() && H5Dread(d.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
      fail(w, "cannot read the data (truncated or corrupt file?)");
    return Tensor(buf, Shape(dims));
  }
  if (cls == H5T_INTEGER) {
    std::vector<int64_t> buf(checked_elems(hd, 8, file_->bytes, w));
    if (!buf.empty() && H5Dread(d.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0)
      fail(w, "cannot read the data (truncated or corrupt file?)");
    return Tensor(buf, Shape(dims));
  }
  fail(w, "unsupported dataset type (HDF5 class " + std::to_string(static_cast<int>(cls)) +
              "); expected float or integer data");
}

void H5Group::write(const std::string& rel, const Tensor& value) {
  init_hdf5();
  const std::string w = where(rel);
  Tensor t = value.to(Device::cpu());
  if (exists(rel) && H5Ldelete(id(), rel.c_str(), H5P_DEFAULT) < 0) fail(w, "cannot replace the dataset");
  std::vector<hsize_t> dims;
  for (auto x : t.shape().dims()) dims.push_back(static_cast<hsize_t>(x));
  H5Id space(dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  H5Id lcpl(H5Pcreate(H5P_LINK_CREATE));
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  hid_t file_type, mem_type;
  switch (t.dtype()) {
    case DType::float32: file_type = H5T_IEEE_F32LE; mem_type = H5T_NATIVE_FLOAT; break;
    case DType::float64: file_type = H5T_IEEE_F64LE; mem_type = H5T_NATIVE_DOUBLE; break;
    case DType::int32: file_type = H5T_STD_I32LE; mem_type = H5T_NATIVE_INT32; break;
    case DType::int64: file_type = H5T_STD_I64LE; mem_type = H5T_NATIVE_INT64; break;
    case DType::uint8: file_type = H5T_STD_U8LE; mem_type = H5T_NATIVE_UINT8; break;
    case DType::bool_: file_type = H5T_STD_U8LE; mem_type = H5T_NATIVE_UINT8; break;
    default: fail(w, "unsupported dtype");
  }
  H5Id d(H5Dcreate2(id(), rel.c_str(), file_type, space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!d.valid()) fail(w, "cannot create the dataset");
  herr_t rc = 0;
  switch (t.dtype()) {
    case DType::float32: { auto v = t.to_vector<float>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
    case DType::float64: { auto v = t.to_vector<double>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
    case DType::int32: { auto v = t.to_vector<int32_t>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
    case DType::int64: { auto v = t.to_vector<int64_t>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
    default: { auto v = t.to_vector<uint8_t>(); if (!v.empty()) rc = H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()); break; }
  }
  if (rc < 0) fail(w, "cannot write the dataset");
}

// ---------------------------------------------------------------- H5File

H5File H5File::wrap(int64_t fid, std::shared_ptr<const H5Group::FileInfo> info) {
  H5File f;
  f.info_ = std::move(info);
  f.file_ = std::make_shared<H5Id>(fid);
  hid_t root = H5Gopen2(fid, "/", H5P_DEFAULT);
  if (root < 0) fail(f.info_->name, "cannot open the root group");
  f.root_ = H5Group(H5Id(root), f.info_, "/");
  return f;
}

namespace {
// Closing a file we wrote closes every object still open in it (STRONG), so
// the bytes are on disk by the time close() returns.
H5Id strong_fapl() {
  H5Id fapl(H5Pcreate(H5P_FILE_ACCESS));
  H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG);
  return fapl;
}
}  // namespace

H5File H5File::open(const std::string& path) {
  init_hdf5();
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw IOError(path + ": no such file");
  if (fs::is_directory(path, ec)) throw IOError(path + ": is a directory, not an HDF5 file");
  const uint64_t bytes = fs::file_size(path, ec);
  if (ec) throw IOError(path + ": cannot read the file size: " + ec.message());
  if (bytes == 0) throw IOError(path + ": the file is empty (0 bytes), not an HDF5 file");
  {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> head(8, 0);
    in.read(reinterpret_cast<char*>(head.data()), 8);
    // HDF5 also allows a user block (signature at 512, 1024, ...); check those too.
    bool ok = looks_like_hdf5(head);
    for (uint64_t off = 512; !ok && off + 8 <= bytes && off <= (uint64_t{1} << 20); off *= 2) {
      in.clear();
      in.seekg(static_cast<std::streamoff>(off));
      in.read(reinterpret_cast<char*>(head.data()), 8);
      ok = looks_like_hdf5(head);
    }
    if (!ok) {
      std::string kind = head[0] == 'P' && head[1] == 'K' ? " (it looks like a zip archive, e.g. a .keras file)"
                         : head[0] == '{'                  ? " (it looks like JSON)"
                                                           : "";
      throw IOError(path + ": not an HDF5 file (bad signature)" + kind);
    }
  }
  {
    std::ifstream in(path, std::ios::binary);
    check_global_heaps(
        [&](uint64_t off, std::size_t n, uint8_t* out) {
          in.clear();
          in.seekg(static_cast<std::streamoff>(off));
          in.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(n));
          return static_cast<std::size_t>(in.gcount()) == n;
        },
        bytes, path);
  }
  H5Id fapl = strong_fapl();
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
  if (f < 0) fail(path, "cannot open the HDF5 file (truncated or corrupt?)");
  return wrap(f, std::make_shared<H5Group::FileInfo>(H5Group::FileInfo{path, bytes}));
}

H5File H5File::open_rw(const std::string& path) {
  init_hdf5();
  std::error_code ec;
  const uint64_t bytes = std::filesystem::file_size(path, ec);
  if (ec) throw IOError(path + ": no such file");
  H5Id fapl = strong_fapl();
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get());
  if (f < 0) fail(path, "cannot open the HDF5 file for writing");
  return wrap(f, std::make_shared<H5Group::FileInfo>(H5Group::FileInfo{path, bytes}));
}

H5File H5File::create(const std::string& path) {
  init_hdf5();
  H5Id fapl = strong_fapl();
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
  if (f < 0) fail(path, "cannot create the HDF5 file");
  return wrap(f, std::make_shared<H5Group::FileInfo>(H5Group::FileInfo{path, ~uint64_t{0} >> 12}));
}

H5File H5File::create_in_memory(const std::string& name) {
  init_hdf5();
  H5Id fapl = strong_fapl();
  H5Pset_fapl_core(fapl.get(), 1 << 20, /*backing_store=*/0);
  hid_t f = H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
  if (f < 0) fail(name, "cannot create the in-memory HDF5 file");
  return wrap(f, std::make_shared<H5Group::FileInfo>(H5Group::FileInfo{name, ~uint64_t{0} >> 12}));
}

H5File H5File::from_image(const std::vector<uint8_t>& bytes, const std::string& name) {
  init_hdf5();
  if (bytes.empty()) throw IOError(name + ": the HDF5 data is empty (0 bytes)");
  if (!looks_like_hdf5(bytes)) throw IOError(name + ": not HDF5 data (bad signature)");
  check_global_heaps(
      [&](uint64_t off, std::size_t n, uint8_t* out) {
        if (off > bytes.size() || n > bytes.size() - off) return false;
        std::memcpy(out, bytes.data() + off, n);
        return true;
      },
      bytes.size(), name);
  H5Id fapl = strong_fapl();
  H5Pset_fapl_core(fapl.get(), 1 << 20, /*backing_store=*/0);
  // H5Pset_file_image copies the buffer, so `bytes` need not outlive the file.
  if (H5Pset_file_image(fapl.get(), const_cast<uint8_t*>(bytes.data()), bytes.size()) < 0)
    fail(name, "cannot hand the HDF5 image to the library");
  hid_t f = H5Fopen(name.c_str(), H5F_ACC_RDONLY, fapl.get());
  if (f < 0) fail(name, "cannot open the HDF5 data (truncated or corrupt?)");
  return wrap(f, std::make_shared<H5Group::FileInfo>(H5Group::FileInfo{name, bytes.size()}));
}

std::vector<uint8_t> H5File::image() const {
  flush();
  ssize_t n = H5Fget_file_image(file_->get(), nullptr, 0);
  if (n < 0) fail(name(), "cannot get the file image");
  std::vector<uint8_t> out(static_cast<std::size_t>(n));
  if (n > 0 && H5Fget_file_image(file_->get(), out.data(), out.size()) < 0) fail(name(), "cannot get the file image");
  return out;
}

void H5File::flush() const {
  if (file_ && file_->valid() && H5Fflush(file_->get(), H5F_SCOPE_GLOBAL) < 0) fail(name(), "cannot flush the file");
}

void H5File::close() {
  root_ = H5Group();
  if (file_ && file_->valid()) {
    // Close through H5Fclose (not a bare dec-ref) so write errors surface here.
    const hid_t f = file_->release();
    file_.reset();
    if (H5Fclose(f) < 0) fail(name(), "cannot close (flush) the file");
  }
  file_.reset();
}

}  // namespace kiln::io
