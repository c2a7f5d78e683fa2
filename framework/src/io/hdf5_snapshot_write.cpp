// Taking and encoding a snapshot of a live HDF5 file (hdf5_snapshot.h). The
// sandboxed child streams the encoding out as it walks the file, so it never
// holds more than one dataset and a small buffer besides libhdf5's image; a
// tree in memory (take_snapshot) is for tests and the fuzz seeds.
#include <cstring>
#include <map>

#include "io/hdf5_snapshot.h"
#include "io/hdf5_snapshot_format.h"
#include "kiln/core/error.h"

namespace kiln::io {

namespace {

using snapshot_format::byte_budget;
using snapshot_format::kMagic;
using snapshot_format::Tag;
using snapshot_format::tensor_bytes;

// ---------------------------------------------------------------- taking

struct Taker {
  const H5SnapshotLimits& limits;
  uint64_t objects = 0, bytes = 0;

  void count(const H5Group& g, uint64_t more_bytes) {
    if (++objects > limits.max_objects)
      throw IOError(g.where() + ": the file has more than " + std::to_string(limits.max_objects) + " objects");
    bytes += more_bytes;
    if (bytes > byte_budget(limits))
      throw IOError(g.where() + ": the file's data exceeds the read limit of " + std::to_string(byte_budget(limits)) +
                    " bytes (kiln::set_max_read_bytes)");
  }

  void check_depth(const H5Group& g, int depth) const {
    if (depth > limits.max_depth)
      throw IOError(g.where() + ": groups nest deeper than " + std::to_string(limits.max_depth) + " levels");
  }

  H5SnapshotAttr attr(const H5Group& g, const std::string& name) {
    H5SnapshotAttr a;
    try {
      a.info = g.attr_info(name);
    } catch (const Error& e) {
      a.info = H5AttrInfo{};
      a.info_error = e.what();
    }
    try {
      a.strings = *g.attr_strings_opt(name);
    } catch (const Error& e) {
      a.strings.clear();
      a.error = e.what();
    }
    uint64_t n = name.size();
    for (const auto& s : a.strings) n += s.size();
    count(g, n);
    return a;
  }

  std::map<std::string, H5SnapshotAttr> attrs(const H5Group& g) {
    std::map<std::string, H5SnapshotAttr> out;
    for (const auto& name : g.attr_names()) out.emplace(name, attr(g, name));
    return out;
  }

  /// The members a snapshot keeps, in name order, and whether each is a group.
  /// Dangling soft links and external links are neither; a live reader cannot
  /// open them either, so they are left out.
  static std::map<std::string, bool> members(const H5Group& g) {
    std::map<std::string, bool> out;
    for (const auto& key : g.keys()) {
      const H5Group::Kind kind = g.member_kind(key);
      if (kind != H5Group::Kind::none) out.emplace(key, kind == H5Group::Kind::group);
    }
    return out;
  }

  std::shared_ptr<const H5SnapshotNode> dataset(const H5Group& g, const std::string& key) {
    auto node = std::make_shared<H5SnapshotNode>();
    node->is_dataset = true;
    try {
      node->dtype = g.dataset_dtype(key);
    } catch (const Error& e) {
      node->dtype_error = e.what();
    }
    try {
      node->shape = g.dataset_shape(key);
    } catch (const Error& e) {
      node->shape_error = e.what();
    }
    try {
      node->data = g.read(key);
    } catch (const Error& e) {
      node->data = Tensor();
      node->error = e.what();
    }
    count(g, tensor_bytes(node->data));
    return node;
  }

  std::shared_ptr<const H5SnapshotNode> group(const H5Group& g, int depth) {
    check_depth(g, depth);
    auto node = std::make_shared<H5SnapshotNode>();
    count(g, 0);
    node->attrs = attrs(g);
    for (const auto& [key, is_group] : members(g))
      node->members.emplace(key, is_group ? group(g.group(key), depth + 1) : dataset(g, key));
    return node;
  }
};

// ---------------------------------------------------------------- encoding

/// Appends to `out`, or, with a sink, hands the bytes on in pieces of about
/// kBuffer bytes; a dataset's data goes to the sink straight from its tensor.
struct Writer {
  static constexpr std::size_t kBuffer = std::size_t{1} << 20;
  // The reader copies referenced values while the walk goes on, so the
  // encoding is handed on at least once per this many referenced bytes.
  static constexpr uint64_t kReferencedPerFlush = uint64_t{1} << 20;
  const SnapshotSink* sink = nullptr;
  std::vector<uint8_t> out;
  uint64_t referenced_since_flush = 0;

  void flush() {
    if (sink && !out.empty()) {
      (*sink)(out.data(), out.size());
      out.clear();
    }
  }
  void raw(const void* p, std::size_t n) {
    if (sink && n >= kBuffer) {
      flush();
      (*sink)(p, n);
      return;
    }
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
    if (sink && out.size() >= kBuffer) flush();
  }
  void u8(uint8_t v) { raw(&v, 1); }
  void u64(uint64_t v) { raw(&v, 8); }
  void str(const std::string& s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  void attr(const H5SnapshotAttr& a) {
    u8(a.info.is_string);
    u8(a.info.variable_length);
    u8(a.info.utf8);
    u64(a.info.element_size);
    u64(static_cast<uint64_t>(static_cast<int64_t>(a.info.type_class)));
    u64(a.info.dims.size());
    for (int64_t d : a.info.dims) u64(static_cast<uint64_t>(d));
    str(a.info_error);
    str(a.error);
    u64(a.strings.size());
    for (const auto& s : a.strings) str(s);
  }
  void head(bool is_dataset, const std::map<std::string, H5SnapshotAttr>& attrs) {
    u8(static_cast<uint8_t>(is_dataset ? Tag::dataset : Tag::group));
    u64(attrs.size());
    for (const auto& [name, a] : attrs) {
      str(name);
      attr(a);
    }
  }
  void dataset_body(const H5SnapshotNode& n, const H5RawData* ref = nullptr) {
    str(n.dtype);
    str(n.dtype_error);
    u64(n.shape.rank());
    for (int64_t d : n.shape.dims()) u64(static_cast<uint64_t>(d));
    str(n.shape_error);
    str(n.error);
    if (ref) {
      // The values stay in the file; the reader copies them from its own bytes.
      u8(snapshot_format::kByReference | static_cast<uint8_t>(static_cast<uint8_t>(ref->dtype) + 1));
      u64(ref->shape.rank());
      for (int64_t d : ref->shape.dims()) u64(static_cast<uint64_t>(d));
      u64(ref->bytes);
      u64(ref->offset);
      return;
    }
    const bool has = n.data.defined();
    u8(has ? static_cast<uint8_t>(n.data.dtype()) + 1 : 0);
    if (!has) return;
    u64(n.data.shape().rank());
    for (int64_t d : n.data.shape().dims()) u64(static_cast<uint64_t>(d));
    u64(tensor_bytes(n.data));
    raw(n.data.raw_data(), static_cast<std::size_t>(tensor_bytes(n.data)));
  }
  void node(const H5SnapshotNode& n) {
    head(n.is_dataset, n.attrs);
    if (n.is_dataset) return dataset_body(n);
    u64(n.members.size());
    for (const auto& [name, m] : n.members) {
      str(name);
      node(*m);
    }
  }
  /// A dataset whose values are bytes of the file, by reference; else as node().
  void live_dataset(Taker& t, const H5Group& g, const std::string& key, bool by_reference) {
    std::optional<H5RawData> ref;
    if (by_reference) ref = g.raw_data(key);
    if (!ref) return node(*t.dataset(g, key));  // freed before the next dataset is read
    H5SnapshotNode n;
    n.is_dataset = true;
    n.dtype = dtype_name(ref->dtype);  // what dataset_dtype() says of these three types
    n.shape = ref->shape;
    t.count(g, ref->bytes);
    head(true, n.attrs);
    dataset_body(n, &*ref);
    referenced_since_flush += ref->bytes;
    if (referenced_since_flush >= kReferencedPerFlush) {
      flush();
      referenced_since_flush = 0;
    }
  }
  /// The encoding of the live group `g`, taken and written member by member.
  void live_group(Taker& t, const H5Group& g, int depth, bool by_reference) {
    t.check_depth(g, depth);
    t.count(g, 0);
    head(false, t.attrs(g));
    const auto members = Taker::members(g);
    u64(members.size());
    for (const auto& [key, is_group] : members) {
      str(key);
      if (is_group) live_group(t, g.group(key), depth + 1, by_reference);
      else live_dataset(t, g, key, by_reference);
    }
  }
};

}  // namespace

std::shared_ptr<const H5SnapshotNode> take_snapshot(const H5Group& root, const H5SnapshotLimits& limits) {
  Taker t{limits};
  return t.group(root, 0);
}

std::vector<uint8_t> encode_snapshot(const H5SnapshotNode& root) {
  Writer w;
  w.raw(kMagic, sizeof kMagic);
  w.node(root);
  return std::move(w.out);
}

void write_snapshot(const H5Group& root, const SnapshotSink& sink, const H5SnapshotLimits& limits,
                    bool by_reference) {
  Taker t{limits};
  Writer w;
  w.sink = &sink;
  w.raw(kMagic, sizeof kMagic);
  w.live_group(t, root, 0, by_reference);
  w.flush();
}

}  // namespace kiln::io
