#include "io/hdf5_snapshot.h"

#include <cstring>
#include <limits>

#include "kiln/core/error.h"
#include "kiln/core/limits.h"

namespace kiln::io {

namespace {

uint64_t tensor_bytes(const Tensor& t) {
  return t.defined() ? static_cast<uint64_t>(t.shape().num_elements()) * dtype_size(t.dtype()) : 0;
}

uint64_t byte_budget(const H5SnapshotLimits& l) {
  return l.max_bytes ? l.max_bytes : static_cast<uint64_t>(max_read_bytes());
}

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
    if (depth > limits.max_depth)
      throw IOError(g.where() + ": groups nest deeper than " + std::to_string(limits.max_depth) + " levels");
    auto node = std::make_shared<H5SnapshotNode>();
    count(g, 0);
    for (const auto& name : g.attr_names()) node->attrs.emplace(name, attr(g, name));
    for (const auto& key : g.keys()) {
      // Dangling soft links and external links are neither; a live reader
      // cannot open them either, so they are left out.
      if (g.is_group(key))
        node->members.emplace(key, group(g.group(key), depth + 1));
      else if (g.is_dataset(key))
        node->members.emplace(key, dataset(g, key));
    }
    return node;
  }
};

// ---------------------------------------------------------------- encoding

enum class Tag : uint8_t { group = 1, dataset = 2 };
constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'H', '5', 'S', '1'};

struct Writer {
  std::vector<uint8_t> out;
  void raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
  void u8(uint8_t v) { out.push_back(v); }
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
  void node(const H5SnapshotNode& n) {
    u8(static_cast<uint8_t>(n.is_dataset ? Tag::dataset : Tag::group));
    u64(n.attrs.size());
    for (const auto& [name, a] : n.attrs) {
      str(name);
      attr(a);
    }
    if (!n.is_dataset) {
      u64(n.members.size());
      for (const auto& [name, m] : n.members) {
        str(name);
        node(*m);
      }
      return;
    }
    str(n.dtype);
    str(n.dtype_error);
    u64(n.shape.rank());
    for (int64_t d : n.shape.dims()) u64(static_cast<uint64_t>(d));
    str(n.shape_error);
    str(n.error);
    const bool has = n.data.defined();
    u8(has ? static_cast<uint8_t>(n.data.dtype()) + 1 : 0);
    if (!has) return;
    u64(n.data.shape().rank());
    for (int64_t d : n.data.shape().dims()) u64(static_cast<uint64_t>(d));
    const Tensor& c = n.data;
    u64(tensor_bytes(c));
    raw(c.raw_data(), static_cast<std::size_t>(tensor_bytes(c)));
  }
};

// ---------------------------------------------------------------- decoding

struct SnapshotReader {
  const uint8_t* p;
  std::size_t left;
  const std::string& name;
  const H5SnapshotLimits& limits;
  uint64_t objects = 0;

  [[noreturn]] void bad(const std::string& what) const {
    throw IOError(name + ": the sandboxed HDF5 reader returned malformed data (" + what + ")");
  }
  void raw(void* dst, std::size_t n) {
    if (n > left) bad("truncated");
    std::memcpy(dst, p, n);
    p += n;
    left -= n;
  }
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
    if (min_bytes_each && n > left / min_bytes_each) bad("a count larger than the data");
    return n;
  }
  std::string str() {
    const uint64_t n = count(1);
    std::string s(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n));
    p += n;
    left -= n;
    return s;
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
  const auto dt = static_cast<DType>(code - 1);
  if (dt != DType::float32 && dt != DType::float64 && dt != DType::int64) bad("a dataset of an unexpected dtype");
  const Shape shape(dims());
  uint64_t expected = dtype_size(dt);
  for (int64_t d : shape.dims())
    if (__builtin_mul_overflow(expected, static_cast<uint64_t>(d), &expected)) bad("a dataset shape whose size overflows");
  const uint64_t nbytes = u64();
  if (nbytes != expected || nbytes > left)
    bad("a dataset whose byte count does not match its shape");
  check_declared_size(nbytes, byte_budget(limits), name);
  Tensor t = Tensor::empty(shape, dt);
  raw(t.raw_data(), static_cast<std::size_t>(nbytes));
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

std::shared_ptr<const H5SnapshotNode> decode_snapshot(const uint8_t* data, std::size_t size, const std::string& name,
                                                      const H5SnapshotLimits& limits) {
  SnapshotReader r{data, size, name, limits};
  char magic[sizeof kMagic];
  r.raw(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof magic) != 0) r.bad("bad header");
  auto root = r.node(0);
  if (root->is_dataset) r.bad("the root is not a group");
  if (r.left != 0) r.bad(std::to_string(r.left) + " trailing bytes");
  return root;
}

}  // namespace kiln::io
