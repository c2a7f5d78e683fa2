#pragma once
// Private to framework/src/io: a small RAII wrapper over the HDF5 C API, just
// what Keras's file layouts need (groups, string and string-list attributes,
// float/int datasets). <hdf5.h> stays in hdf5_internal.h and the .cpp files; ids are carried as
// int64_t (hid_t is int64_t since HDF5 1.10).
//
// Every failure throws kiln::IOError naming the file and the object path
// ("model.h5:/model_weights/dense: ..."). HDF5's own error-stack printing is
// switched off once per process (H5Eset_auto2), so a corrupt file produces one
// clear exception instead of pages of stderr.
//
//   auto f = kiln::io::H5File::open("model.h5");
//   auto g = f.root().group("model_weights");
//   for (auto& n : g.attr_strings("layer_names")) ...
//   Tensor k = g.group(n).read(name);
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/shape.h"
#include "kiln/core/tensor.h"

namespace kiln::io {

/// One open HDF5 id (file, group, dataset...), closed on destruction.
class H5Id {
 public:
  H5Id() = default;
  explicit H5Id(int64_t id) : id_(id) {}
  H5Id(H5Id&& o) noexcept : id_(o.id_) { o.id_ = -1; }
  H5Id& operator=(H5Id&& o) noexcept;
  H5Id(const H5Id&) = delete;
  H5Id& operator=(const H5Id&) = delete;
  ~H5Id();
  int64_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  void reset();
  /// Gives up ownership (the caller closes the id).
  int64_t release() {
    int64_t i = id_;
    id_ = -1;
    return i;
  }

 private:
  int64_t id_ = -1;
};

/// What an attribute holds, as h5py would describe it (for structure checks).
struct H5AttrInfo {
  bool is_string = false;
  bool variable_length = false;  // strings: H5T_VARIABLE
  bool utf8 = false;             // strings: H5T_CSET_UTF8
  std::size_t element_size = 0;  // fixed-length strings: bytes per element
  int type_class = -1;           // H5T_class_t
  std::vector<int64_t> dims;     // {} for a scalar dataspace
};

enum class StrEncoding { ascii, utf8 };

struct H5SnapshotNode;  // hdf5_snapshot.h

/// A dataset's values as bytes of the file (H5Group::raw_data).
struct H5RawData {
  DType dtype;
  Shape shape;
  uint64_t offset;  ///< from the file's first byte
  uint64_t bytes;
};

class H5Group {
 public:
  H5Group() = default;
  /// Which file an object belongs to: its name (for errors) and size in bytes
  /// (datasets claiming far more data than the file holds are refused).
  struct FileInfo {
    std::string name;
    uint64_t bytes = 0;
    /// The file's user block size, read once by raw_data (-1: not yet).
    mutable int64_t userblock = -1;
  };
  H5Group(H5Id id, std::shared_ptr<const FileInfo> file, std::string path);
  /// A read-only group over a snapshot (hdf5_snapshot.h): every read answers
  /// as the live group did when the snapshot was taken; writes fail.
  H5Group(std::shared_ptr<const H5SnapshotNode> node, std::shared_ptr<const FileInfo> file, std::string path);

  /// "<file>:<path>", the prefix of every error message.
  std::string where() const;
  std::string where(const std::string& child) const;
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_->name; }

  // ---- links ----
  /// True if the relative path (may contain '/') names an existing object.
  bool exists(const std::string& rel) const;
  bool is_group(const std::string& rel) const;
  bool is_dataset(const std::string& rel) const;
  /// What the direct member `name` (one of keys()) is, found with one probe
  /// where is_group and is_dataset take several: neither is a dangling or
  /// unreachable link, or an object of another type.
  enum class Kind { none, group, dataset };
  Kind member_kind(const std::string& name) const;
  /// Opens a subgroup; throws IOError naming the file and path if missing.
  H5Group group(const std::string& rel) const;
  /// Opens or creates a subgroup (and missing intermediate groups).
  H5Group require_group(const std::string& rel);
  /// Names of the direct members, in name order (as h5py lists them).
  std::vector<std::string> keys() const;

  // ---- attributes ----
  bool has_attr(const std::string& name) const;
  std::vector<std::string> attr_names() const;
  H5AttrInfo attr_info(const std::string& name) const;
  /// A string attribute (scalar, or a 1-element array), fixed or variable
  /// length, ASCII or UTF-8. Throws IOError if it is missing or not a string.
  std::string attr_string(const std::string& name) const;
  std::optional<std::string> attr_string_opt(const std::string& name) const;
  /// A list of strings as Keras writes it: 1-D (or scalar) fixed/variable
  /// length strings, an empty float64 array for an empty list, or split into
  /// name0, name1, ... when too big for one attribute. Missing -> nullopt.
  std::optional<std::vector<std::string>> attr_strings_opt(const std::string& name) const;
  std::vector<std::string> attr_strings(const std::string& name) const;
  /// Scalar variable-length string (h5py's str -> UTF-8, bytes -> ASCII).
  void set_attr(const std::string& name, const std::string& value, StrEncoding enc);
  /// 1-D variable-length ASCII strings (h5py's list of bytes); an empty list
  /// is written as a float64 array of shape (0,), exactly as h5py does. Lists
  /// over 64512 bytes are split into name0, name1, ... like Keras.
  void set_attr_strings(const std::string& name, const std::vector<std::string>& values);

  // ---- datasets ----
  /// Reads a float32/float64/integer dataset into a tensor of the matching
  /// dtype (float32 for float32 data, int64 for integers, float64 for doubles).
  Tensor read(const std::string& rel) const;
  /// Where read(rel)'s bytes lie in the file, when the file stores them exactly
  /// as read() returns them (contiguous, unfiltered, little-endian float32,
  /// float64 or int64, no user block); none otherwise, and for snapshots.
  std::optional<H5RawData> raw_data(const std::string& rel) const;
  Shape dataset_shape(const std::string& rel) const;
  /// "float32", "float64", "int64", ... as NumPy names them.
  std::string dataset_dtype(const std::string& rel) const;
  /// Writes a tensor as a contiguous little-endian dataset (missing
  /// intermediate groups are created); the element type follows the tensor.
  void write(const std::string& rel, const Tensor& value);

  int64_t id() const { return id_ ? id_->get() : -1; }

 private:
  /// The dataset `rel`, opened, with errors naming it.
  H5Id open_dataset(const std::string& rel) const;
  /// One attribute read as a string list (no name0, name1 ... joining).
  std::vector<std::string> read_attr_strings(const std::string& name) const;
  /// Snapshot groups: the node at `rel` (nullptr if none), a dataset node or
  /// the error a live group would give, and the attribute `name` or "missing".
  const H5SnapshotNode* snap_find(const std::string& rel) const;
  const H5SnapshotNode& snap_dataset(const std::string& rel) const;
  void require_live(const char* op) const;

  std::shared_ptr<const H5SnapshotNode> node_;
  std::shared_ptr<H5Id> id_;
  std::shared_ptr<const FileInfo> file_;
  std::string path_;
};

class H5File {
 public:
  /// Opens an existing file read-only. Missing files, non-HDF5 files and
  /// truncated files throw IOError naming the path.
  static H5File open(const std::string& path);
  /// Opens an existing file for reading and writing.
  static H5File open_rw(const std::string& path);
  /// Creates (truncates) a file on disk.
  static H5File create(const std::string& path);
  /// Creates a file in memory; image() returns its bytes.
  static H5File create_in_memory(const std::string& name);
  /// Opens bytes already in memory (a .keras member); `name` is used in errors.
  static H5File from_image(const std::vector<uint8_t>& bytes, const std::string& name) {
    return from_memory(bytes.data(), bytes.size(), name, false);
  }
  /// The same for `size` bytes at `data`. `borrow`: libhdf5 reads them in
  /// place instead of copying them, so they must outlive the file (the
  /// sandboxed child's mapping of the file; h5::borrow_image).
  static H5File from_memory(const uint8_t* data, std::size_t size, const std::string& name, bool borrow);
  /// A read-only file over a snapshot of `bytes` bytes of HDF5 (hdf5_sandbox.h).
  static H5File from_snapshot(std::shared_ptr<const H5SnapshotNode> root, const std::string& name, uint64_t bytes);

  H5Group root() const { return root_; }
  /// The file's bytes (in-memory files; flushes first).
  std::vector<uint8_t> image() const;
  void flush() const;
  void close();
  const std::string& name() const { return info_->name; }

 private:
  static H5File wrap(int64_t fid, std::shared_ptr<const H5Group::FileInfo> info);
  std::shared_ptr<const H5Group::FileInfo> info_;
  std::shared_ptr<H5Id> file_;
  H5Group root_;
};

/// True if `bytes` start with the HDF5 signature (at offset 0).
bool looks_like_hdf5(const std::vector<uint8_t>& head);

}  // namespace kiln::io
