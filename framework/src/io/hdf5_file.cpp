#include "io/hdf5_file.h"

#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <mutex>

#include "io/hdf5_internal.h"
#include "io/hdf5_snapshot.h"
#include "kiln/core/error.h"

namespace kiln::io {

namespace h5 {

// HDF5 prints its whole error stack to stderr on every failed call unless the
// automatic handler is turned off; we report failures as exceptions instead.
void init_hdf5() {
  static std::once_flag once;
  std::call_once(once, [] {
    H5open();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  });
}

namespace {
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
}  // namespace

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw IOError(where + ": " + what + h5_reason());
}

std::string join_path(const std::string& base, const std::string& rel) {
  if (base == "/" || base.empty()) return "/" + rel;
  return base + "/" + rel;
}

std::vector<std::string> split_path(const std::string& rel) {
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

}  // namespace h5

using h5::fail;
using h5::init_hdf5;
using h5::join_path;

namespace {

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
                        const std::string& name, const uint8_t* in_memory = nullptr) {
  constexpr std::size_t kBlock = 1 << 20;
  std::vector<uint8_t> staging(in_memory ? 0 : kBlock + 3);
  auto le = [](const uint8_t* p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
  };
  for (uint64_t base = 0; base < total; base += kBlock) {
    const std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(kBlock + 3, total - base));
    // Bytes already in memory are scanned where they are.
    const uint8_t* buf = in_memory ? in_memory + base : staging.data();
    if (!in_memory && !read(base, n, staging.data())) return;
    const std::size_t scan = std::min(n, kBlock);
    for (std::size_t i = 0; i + 4 <= n && i < kBlock; ++i) {
      // memchr finds the candidates: a byte-by-byte loop was 7% of loading a ResNet50.
      const void* g = std::memchr(buf + i, 'G', scan - i);
      if (!g) break;
      i = static_cast<std::size_t>(static_cast<const uint8_t*>(g) - buf);
      if (i + 4 > n || buf[i + 1] != 'C' || buf[i + 2] != 'O' || buf[i + 3] != 'L') continue;
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

H5File H5File::from_memory(const uint8_t* data, std::size_t size, const std::string& name, bool borrow) {
  init_hdf5();
  if (size == 0) throw IOError(name + ": the HDF5 data is empty (0 bytes)");
  if (!looks_like_hdf5(std::vector<uint8_t>(data, data + std::min<std::size_t>(size, 8))))
    throw IOError(name + ": not HDF5 data (bad signature)");
  check_global_heaps(
      [&](uint64_t off, std::size_t n, uint8_t* out) {
        if (off > size || n > size - off) return false;
        std::memcpy(out, data + off, n);
        return true;
      },
      size, name, data);
  H5Id fapl = strong_fapl();
  H5Pset_fapl_core(fapl.get(), 1 << 20, /*backing_store=*/0);
  if (borrow) h5::borrow_image(fapl.get(), data, size);
  // Otherwise H5Pset_file_image copies the buffer, so it need not outlive the file.
  else if (H5Pset_file_image(fapl.get(), const_cast<uint8_t*>(data), size) < 0)
    fail(name, "cannot hand the HDF5 image to the library");
  hid_t f = H5Fopen(name.c_str(), H5F_ACC_RDONLY, fapl.get());
  if (f < 0) fail(name, "cannot open the HDF5 data (truncated or corrupt?)");
  return wrap(f, std::make_shared<H5Group::FileInfo>(H5Group::FileInfo{name, size}));
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