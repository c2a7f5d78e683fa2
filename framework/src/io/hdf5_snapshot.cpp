#include "io/hdf5_snapshot.h"

#include <cstring>
#include <limits>

#include "io/hdf5_snapshot_format.h"
#include "kiln/core/error.h"
#include "kiln/core/limits.h"

namespace kiln::io {

namespace {

using snapshot_format::byte_budget;
using snapshot_format::kMagic;
using snapshot_format::Tag;

// ---------------------------------------------------------------- decoding

struct SnapshotReader {
  SnapshotSource& src;
  std::size_t pos = 0;
  const std::string& name;
  const H5SnapshotLimits& limits;
  const RawFetch* fetch;
  uint64_t objects = 0, referenced = 0;
  std::vector<RawRead> reads;  // values sent by reference and not yet copied

  [[noreturn]] void bad(const std::string& what) const {
    throw IOError(name + ": the sandboxed HDF5 reader returned malformed data (" + what + ")");
  }
  /// Copies the values referenced so far; done before each wait for more of
  /// the encoding, so the copies overlap the child's walk.
  void fetch_pending() {
    if (reads.empty()) return;
    (*fetch)(reads);
    reads.clear();
  }
  /// The next `n` bytes, waiting for them if they have not arrived.
  const uint8_t* need(std::size_t n) {
    if (n > src.limit() - pos) bad("truncated");
    while (src.size() - pos < n) {
      fetch_pending();
      if (!src.pull()) bad("truncated");
    }
    const uint8_t* at = src.data() + pos;
    pos += n;
    return at;
  }
  void raw(void* dst, std::size_t n) { std::memcpy(dst, need(n), n); }
  uint8_t u8() {
    uint8_t v;
    raw(&v, 1);
    return v;
  }
  uint64_t u64() {
    uint64_t v;
    raw(&v, 8);
    return v;
  }
  uint64_t count(uint64_t min_bytes_each) {
    const uint64_t n = u64();
    if (min_bytes_each && n > (src.limit() - pos) / min_bytes_each) bad("a count larger than the data");
    return n;
  }
  std::string str() {
    const auto n = static_cast<std::size_t>(count(1));
    return std::string(reinterpret_cast<const char*>(need(n)), n);
  }
  bool flag() {
    const uint8_t v = u8();
    if (v > 1) bad("a flag other than 0 or 1");
    return v == 1;
  }
  std::vector<int64_t> dims() {
    const uint64_t rank = count(8);
    if (rank > 32) bad("rank " + std::to_string(rank));
    std::vector<int64_t> d;
    for (uint64_t i = 0; i < rank; ++i) {
      const uint64_t x = u64();
      if (x > (uint64_t{1} << 62)) bad("a negative or huge dimension");
      d.push_back(static_cast<int64_t>(x));
    }
    return d;
  }
  H5SnapshotAttr attr();
  Tensor tensor();
  std::shared_ptr<const H5SnapshotNode> node(int depth);
};

H5SnapshotAttr SnapshotReader::attr() {
  H5SnapshotAttr a;
  a.info.is_string = flag();
  a.info.variable_length = flag();
  a.info.utf8 = flag();
  a.info.element_size = static_cast<std::size_t>(u64());
  const auto cls = static_cast<int64_t>(u64());
  if (cls < -1 || cls > 64) bad("an attribute type class of " + std::to_string(cls));
  a.info.type_class = static_cast<int>(cls);
  a.info.dims = dims();
  a.info_error = str();
  a.error = str();
  const uint64_t n = count(8);
  for (uint64_t i = 0; i < n; ++i) a.strings.push_back(str());
  return a;
}

Tensor SnapshotReader::tensor() {
  const uint8_t code = u8();
  if (code == 0) return Tensor();
  const bool by_reference = (code & snapshot_format::kByReference) != 0;
  const auto dt = static_cast<DType>((code & ~snapshot_format::kByReference) - 1);
  if (dt != DType::float32 && dt != DType::float64 && dt != DType::int64 && dt != DType::float16 &&
      dt != DType::bfloat16 && dt != DType::int8)
    bad("a dataset of an unexpected dtype");
  const Shape shape(dims());
  uint64_t expected = dtype_size(dt);
  for (int64_t d : shape.dims())
    if (__builtin_mul_overflow(expected, static_cast<uint64_t>(d), &expected)) bad("a dataset shape whose size overflows");
  const uint64_t nbytes = u64();
  if (nbytes != expected || (!by_reference && nbytes > src.limit() - pos))
    bad("a dataset whose byte count does not match its shape");
  check_declared_size(nbytes, byte_budget(limits), name);
  if (!by_reference) {
    Tensor t = Tensor::empty(shape, dt);
    raw(t.raw_data(), static_cast<std::size_t>(nbytes));
    return t;
  }
  const uint64_t offset = u64();
  if (!fetch) bad("a dataset by reference, without the file");
  // The fetch checks the range against the file; the total stays under the budget.
  referenced += nbytes;
  check_declared_size(referenced, byte_budget(limits), name);
  Tensor t = Tensor::empty(shape, dt);
  if (nbytes > 0) reads.push_back({offset, t.raw_data(), static_cast<std::size_t>(nbytes)});
  return t;
}

std::shared_ptr<const H5SnapshotNode> SnapshotReader::node(int depth) {
  if (depth > limits.max_depth) bad("groups nested deeper than " + std::to_string(limits.max_depth));
  if (++objects > limits.max_objects) bad("more than " + std::to_string(limits.max_objects) + " objects");
  auto n = std::make_shared<H5SnapshotNode>();
  const uint8_t tag = u8();
  if (tag != static_cast<uint8_t>(Tag::group) && tag != static_cast<uint8_t>(Tag::dataset)) bad("an unknown node tag");
  n->is_dataset = tag == static_cast<uint8_t>(Tag::dataset);
  const uint64_t nattrs = count(8);
  for (uint64_t i = 0; i < nattrs; ++i) {
    std::string key = str();
    if (!n->attrs.emplace(std::move(key), attr()).second) bad("a repeated attribute name");
  }
  if (!n->is_dataset) {
    const uint64_t nm = count(9);
    for (uint64_t i = 0; i < nm; ++i) {
      std::string key = str();
      if (key.empty() || key.find('/') != std::string::npos) bad("a member name that is empty or contains '/'");
      if (!n->members.emplace(std::move(key), node(depth + 1)).second) bad("a repeated member name");
    }
    return n;
  }
  n->dtype = str();
  n->dtype_error = str();
  n->shape = Shape(dims());
  n->shape_error = str();
  n->error = str();
  n->data = tensor();
  if (n->error.empty() == !n->data.defined()) bad("a dataset with neither data nor an error, or both");
  return n;
}

}  // namespace

std::shared_ptr<const H5SnapshotNode> decode_snapshot(SnapshotSource& source, const std::string& name,
                                                      const H5SnapshotLimits& limits, const RawFetch* fetch) {
  SnapshotReader r{source, 0, name, limits, fetch};
  char magic[sizeof kMagic];
  r.raw(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof magic) != 0) r.bad("bad header");
  auto root = r.node(0);
  if (root->is_dataset) r.bad("the root is not a group");
  if (source.size() != r.pos || source.pull()) r.bad(std::to_string(source.size() - r.pos) + " trailing bytes");
  r.fetch_pending();
  return root;
}

std::shared_ptr<const H5SnapshotNode> decode_snapshot(const uint8_t* data, std::size_t size, const std::string& name,
                                                      const H5SnapshotLimits& limits, const RawFetch* fetch) {
  struct Whole final : SnapshotSource {
    const uint8_t* bytes;
    std::size_t n;
    Whole(const uint8_t* b, std::size_t s) : bytes(b), n(s) {}
    const uint8_t* data() const override { return bytes; }
    std::size_t size() const override { return n; }
    bool pull() override { return false; }
    uint64_t limit() const override { return n; }
  } whole(data, size);
  return decode_snapshot(whole, name, limits, fetch);
}

}  // namespace kiln::io
