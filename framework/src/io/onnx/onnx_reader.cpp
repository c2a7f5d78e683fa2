#include "io/onnx/onnx_reader.h"

#include <cstring>
#include <limits>

#include "kiln/core/error.h"

namespace kiln::io::onnx {

namespace {

/// One message's bytes, read field by field.
class Fields {
 public:
  Fields(const std::string& bytes, std::size_t begin, std::size_t end, const std::string& file)
      : b_(bytes), at_(begin), end_(end), file_(file) {}
  bool next() {
    if (at_ >= end_) return false;
    const uint64_t key = varint();
    field_ = static_cast<int>(key >> 3);
    wire_ = static_cast<int>(key & 7);
    return true;
  }
  int field() const { return field_; }
  uint64_t u() {
    expect(0);
    return varint();
  }
  int64_t i() { return static_cast<int64_t>(u()); }
  float f32() {
    expect(5);
    need(4);
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v |= static_cast<uint32_t>(static_cast<uint8_t>(b_[at_ + k])) << (8 * k);
    at_ += 4;
    float f;
    std::memcpy(&f, &v, 4);
    return f;
  }
  /// A length-delimited field: its bounds, skipped over.
  std::pair<std::size_t, std::size_t> span() {
    expect(2);
    const uint64_t n = varint();
    need(n);
    const std::size_t begin = at_;
    at_ += static_cast<std::size_t>(n);
    return {begin, at_};
  }
  std::string bytes() {
    auto [begin, end] = span();
    return b_.substr(begin, end - begin);
  }
  Fields sub() {
    auto [begin, end] = span();
    return Fields(b_, begin, end, file_);
  }
  /// Repeated integers, packed or one per field.
  void ints(std::vector<int64_t>& out) {
    if (wire_ == 0) return out.push_back(i());
    Fields p = sub();
    while (p.at_ < p.end_) {
      out.push_back(static_cast<int64_t>(p.varint()));
      if (out.size() > (1u << 24)) p.fail("more than 2^24 integers in one field");
    }
  }
  void skip() {
    switch (wire_) {
      case 0: varint(); break;
      case 1: need(8), at_ += 8; break;
      case 2: span(); break;
      case 5: need(4), at_ += 4; break;
      default: fail("wire type " + std::to_string(wire_) + " of field " + std::to_string(field_) + " is not protobuf's");
    }
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw IOError("'" + file_ + "' is not a readable ONNX file: " + why + " (at byte " + std::to_string(at_) + ")");
  }

 private:
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      need(1);
      const auto c = static_cast<uint8_t>(b_[at_++]);
      v |= static_cast<uint64_t>(c & 0x7F) << shift;
      if (!(c & 0x80)) return v;
    }
    fail("a varint longer than 10 bytes");
  }
  void need(uint64_t n) const {
    if (n > end_ - at_) fail("truncated: a field needs " + std::to_string(n) + " bytes, " + std::to_string(end_ - at_) + " remain");
  }
  void expect(int wire) const {
    if (wire_ != wire)
      fail("field " + std::to_string(field_) + " has wire type " + std::to_string(wire_) + ", expected " + std::to_string(wire));
  }
  const std::string& b_;
  std::size_t at_, end_;
  const std::string& file_;
  int field_ = 0, wire_ = 0;
};

DType dtype_of(int64_t onnx, const Fields& f) {
  for (DType d : {DType::float32, DType::float64, DType::int32, DType::int64, DType::uint8, DType::bool_})
    if (onnx_dtype(d) == onnx) return d;
  f.fail("element type " + std::to_string(onnx) + " is not one Kiln has");
}

TensorData tensor(Fields f) {
  TensorData t;
  int64_t type = 1;
  while (f.next()) {
    switch (f.field()) {
      case 1: f.ints(t.dims); break;
      case 2: type = f.i(); break;
      case 8: t.name = f.bytes(); break;
      case 9: t.raw = f.bytes(); break;
      case 4: case 5: case 7: case 10: case 11: f.fail("tensor data outside raw_data is not read"); 
      default: f.skip();
    }
  }
  t.dtype = dtype_of(type, f);
  uint64_t n = 1;
  for (int64_t d : t.dims) {
    if (d < 0 || (d > 0 && n > std::numeric_limits<uint32_t>::max() / static_cast<uint64_t>(d)))
      f.fail("tensor '" + t.name + "' has a bad dimension " + std::to_string(d));
    n *= static_cast<uint64_t>(d);
  }
  if (n * dtype_size(t.dtype) != t.raw.size())
    f.fail("tensor '" + t.name + "' holds " + std::to_string(t.raw.size()) + " bytes, its shape needs " +
           std::to_string(n * dtype_size(t.dtype)));
  return t;
}

Attribute attribute(Fields f) {
  Attribute a;
  while (f.next()) {
    switch (f.field()) {
      case 1: a.name = f.bytes(); break;
      case 2: a.f = f.f32(); break;
      case 3: a.i = f.i(); break;
      case 4: a.s = f.bytes(); break;
      case 5: a.tensor = f.bytes(); break;
      case 6: a.tensor = f.bytes(); break;  // a graph
      case 7: a.floats.push_back(f.f32()); break;
      case 8: f.ints(a.ints); break;
      case 9: a.strings.push_back(f.bytes()); break;
      case 20: {
        const int64_t k = f.i();
        a.kind = k >= Attribute::kFloat && k <= Attribute::kStrings ? static_cast<Attribute::Kind>(k) : Attribute::kUndefined;
        break;
      }
      default: f.skip();
    }
  }
  return a;
}

NodeProto node(Fields f) {
  NodeProto n;
  while (f.next()) {
    switch (f.field()) {
      case 1: n.inputs.push_back(f.bytes()); break;
      case 2: n.outputs.push_back(f.bytes()); break;
      case 3: n.name = f.bytes(); break;
      case 4: n.op_type = f.bytes(); break;
      case 5: n.attributes.push_back(attribute(f.sub())); break;
      case 7:
        if (!f.bytes().empty()) f.fail("node '" + n.name + "' is in a domain other than ONNX's own");
        break;
      default: f.skip();
    }
  }
  return n;
}

ValueInfo value_info(Fields f) {
  ValueInfo v;
  while (f.next()) {
    if (f.field() == 1) { v.name = f.bytes(); continue; }
    if (f.field() != 2) { f.skip(); continue; }
    Fields type = f.sub();
    while (type.next()) {
      if (type.field() != 1) { type.skip(); continue; }
      Fields tt = type.sub();
      while (tt.next()) {
        if (tt.field() == 1) { v.dtype = dtype_of(tt.i(), tt); continue; }
        if (tt.field() != 2) { tt.skip(); continue; }
        Fields shape = tt.sub();
        while (shape.next()) {
          if (shape.field() != 1) { shape.skip(); continue; }
          Fields dim = shape.sub();
          Dim d;
          while (dim.next()) {
            if (dim.field() == 1) d.value = dim.i();
            else if (dim.field() == 2) d.param = dim.bytes();
            else dim.skip();
          }
          v.dims.push_back(d);
        }
      }
    }
  }
  return v;
}

GraphProto graph(Fields f) {
  GraphProto g;
  while (f.next()) {
    switch (f.field()) {
      case 1: g.nodes.push_back(node(f.sub())); break;
      case 2: g.name = f.bytes(); break;
      case 5: g.initializers.push_back(tensor(f.sub())); break;
      case 11: g.inputs.push_back(value_info(f.sub())); break;
      case 12: g.outputs.push_back(value_info(f.sub())); break;
      default: f.skip();
    }
  }
  return g;
}

}  // namespace

GraphProto decode_graph(const std::string& bytes, const std::string& file) {
  return graph(Fields(bytes, 0, bytes.size(), file));
}

TensorData decode_tensor(const std::string& bytes, const std::string& file) {
  return tensor(Fields(bytes, 0, bytes.size(), file));
}

ModelData decode_model(const std::string& bytes, const std::string& file) {
  ModelData m;
  Fields f(bytes, 0, bytes.size(), file);
  bool has_graph = false;
  while (f.next()) {
    if (f.field() == 7) {
      m.graph = graph(f.sub());
      has_graph = true;
    } else if (f.field() == 8) {
      Fields op = f.sub();
      std::string domain;
      int64_t version = 0;
      while (op.next()) {
        if (op.field() == 1) domain = op.bytes();
        else if (op.field() == 2) version = op.i();
        else op.skip();
      }
      if (domain.empty()) m.opset = version;
    } else {
      f.skip();
    }
  }
  if (!has_graph) f.fail("it has no graph");
  if (m.opset < 13) f.fail("its opset is " + std::to_string(m.opset) + "; Kiln reads 13 and later");
  return m;
}

}  // namespace kiln::io::onnx
