#pragma once
// Private to framework/src/io: an HDF5 file's contents copied out of libhdf5
// into plain memory (groups, attributes decoded as Kiln reads them, datasets
// as tensors), and a flat byte encoding of that copy.
//
// It is how untrusted files are read (hdf5_sandbox.h): a sandboxed child
// process parses the file with libhdf5, takes the snapshot and encodes it; the
// parent decodes it with bounds-checked code of its own, so libhdf5 never
// parses the untrusted bytes in the parent. An H5Group over a snapshot answers
// every read the loaders make exactly as a live one would, including the
// errors, which the child records where they happen.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/hdf5_file.h"

namespace kiln::io {

struct H5SnapshotAttr {
  H5AttrInfo info;
  std::string info_error;  // attr_info's error, if it failed
  /// The attribute read as a string list (attr_strings), or the reason it
  /// cannot be (then `error` is set and `strings` is empty).
  std::vector<std::string> strings;
  std::string error;
};

struct H5SnapshotNode {
  bool is_dataset = false;
  std::map<std::string, H5SnapshotAttr> attrs;  // name order, as H5Aiterate lists them
  // Groups: members in name order, as H5Literate lists them.
  std::map<std::string, std::shared_ptr<const H5SnapshotNode>> members;
  // Datasets: what dataset_dtype / dataset_shape / read return, or their errors.
  std::string dtype, dtype_error;
  Shape shape;
  std::string shape_error;
  Tensor data;
  std::string error;
};

/// Limits a snapshot must stay within (the decoder enforces them; the child
/// stops copying past them).
struct H5SnapshotLimits {
  int max_depth = 64;
  uint64_t max_objects = 1'000'000;
  uint64_t max_bytes = 0;  // 0: max_read_bytes()
};

/// Copies the whole tree under `root` (a live group) into memory.
std::shared_ptr<const H5SnapshotNode> take_snapshot(const H5Group& root, const H5SnapshotLimits& limits = {});

/// Receives an encoding piece by piece (the sandboxed child's pipe).
using SnapshotSink = std::function<void(const void* data, std::size_t size)>;
/// Walks the live group `root` and writes the encoding of its snapshot to
/// `sink` as it goes: the same bytes as encode_snapshot(*take_snapshot(root)),
/// without holding the tree. Throws IOError (limits) part way, with some
/// bytes already written. `by_reference`: a dataset whose values are stored
/// in the file exactly as read() returns them (H5Group::raw_data) is written
/// as their offset and size instead, so the values never pass through the
/// child; decode_snapshot then needs a RawFetch over the same file's bytes.
void write_snapshot(const H5Group& root, const SnapshotSink& sink, const H5SnapshotLimits& limits = {},
                    bool by_reference = false);

/// One dataset's values to copy from the file the snapshot was taken from.
struct RawRead {
  uint64_t offset;
  void* dst;
  std::size_t size;
};
/// Copies every read's bytes from the file into its `dst`, all at once (so
/// they can be copied in parallel); throws IOError when one is not in the file.
using RawFetch = std::function<void(const std::vector<RawRead>& reads)>;

/// An encoding that arrives in pieces (the sandboxed child's pipe), so that
/// it is decoded, and the values it references copied, while the child is
/// still walking the file.
class SnapshotSource {
 public:
  virtual ~SnapshotSource() = default;
  /// The bytes received so far; the pointer may change after pull().
  virtual const uint8_t* data() const = 0;
  virtual std::size_t size() const = 0;
  /// Waits for more bytes and appends them; false when there will be none.
  virtual bool pull() = 0;
  /// The most bytes the encoding can have in all (counts are checked against it).
  virtual uint64_t limit() const = 0;
};

/// The encoding of a snapshot, and its inverse. decode_snapshot refuses
/// (IOError naming `name`) any byte string that is not exactly an encoding of
/// a tree within `limits`: it is the only parser that sees the child's output.
/// Values sent by reference are fetched as they arrive, in a batch each time
/// the decoder would wait for more of the encoding.
std::vector<uint8_t> encode_snapshot(const H5SnapshotNode& root);
std::shared_ptr<const H5SnapshotNode> decode_snapshot(SnapshotSource& source, const std::string& name,
                                                      const H5SnapshotLimits& limits = {},
                                                      const RawFetch* fetch = nullptr);
std::shared_ptr<const H5SnapshotNode> decode_snapshot(const uint8_t* data, std::size_t size, const std::string& name,
                                                      const H5SnapshotLimits& limits = {},
                                                      const RawFetch* fetch = nullptr);

}  // namespace kiln::io
