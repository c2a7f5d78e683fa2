#include "io/onnx/onnx_proto.h"

#include "io/proto_wire.h"

namespace kiln::io::onnx {

using namespace kiln::io::wire;

int onnx_dtype(DType dtype) {
  switch (dtype) {
    case DType::float32: return 1;
    case DType::uint8: return 2;
    case DType::int8: return 3;
    case DType::int32: return 6;
    case DType::int64: return 7;
    case DType::bool_: return 9;
    case DType::float64: return 11;
  }
  return 0;
}

namespace {

// Field numbers from onnx.proto.
std::string encode_attribute(const Attribute& a) {
  std::string s;
  put_bytes_field(s, 1, a.name);
  put_varint_field(s, 20, static_cast<uint64_t>(a.kind));
  switch (a.kind) {
    case Attribute::kFloat: put_float_field(s, 2, a.f); break;
    case Attribute::kInt: put_varint_field(s, 3, static_cast<uint64_t>(a.i)); break;
    case Attribute::kString: put_bytes_field(s, 4, a.s); break;
    case Attribute::kTensor: put_bytes_field(s, 5, a.tensor); break;
    case Attribute::kGraph: put_bytes_field(s, 6, a.tensor); break;
    case Attribute::kFloats:
      for (float f : a.floats) put_float_field(s, 7, f);
      break;
    case Attribute::kInts:
      for (int64_t v : a.ints) put_varint_field(s, 8, static_cast<uint64_t>(v));
      break;
    case Attribute::kStrings:
      for (const auto& v : a.strings) put_bytes_field(s, 9, v);
      break;
    case Attribute::kUndefined: break;  // Kiln's writers always set a kind
  }
  return s;
}

std::string encode_node(const NodeProto& n) {
  std::string s;
  for (const auto& i : n.inputs) put_bytes_field(s, 1, i);
  for (const auto& o : n.outputs) put_bytes_field(s, 2, o);
  put_bytes_field(s, 3, n.name);
  put_bytes_field(s, 4, n.op_type);
  for (const auto& a : n.attributes) put_bytes_field(s, 5, encode_attribute(a));
  return s;
}

std::string encode_value_info(const ValueInfo& v) {
  std::string shape;
  for (const auto& d : v.dims) {
    std::string dim;
    if (d.param.empty()) put_varint_field(dim, 1, static_cast<uint64_t>(d.value));
    else put_bytes_field(dim, 2, d.param);
    put_bytes_field(shape, 1, dim);
  }
  std::string tensor_type;
  put_varint_field(tensor_type, 1, static_cast<uint64_t>(onnx_dtype(v.dtype)));
  put_bytes_field(tensor_type, 2, shape);
  std::string type;
  put_bytes_field(type, 1, tensor_type);
  std::string s;
  put_bytes_field(s, 1, v.name);
  put_bytes_field(s, 2, type);
  return s;
}

}  // namespace

std::string encode_graph(const GraphProto& g) {
  std::string s;
  for (const auto& n : g.nodes) put_bytes_field(s, 1, encode_node(n));
  put_bytes_field(s, 2, g.name);
  for (const auto& t : g.initializers) put_bytes_field(s, 5, encode_tensor(t));
  if (!g.doc.empty()) put_bytes_field(s, 10, g.doc);
  for (const auto& v : g.inputs) put_bytes_field(s, 11, encode_value_info(v));
  for (const auto& v : g.outputs) put_bytes_field(s, 12, encode_value_info(v));
  return s;
}

std::string encode_tensor(const TensorData& t) {
  std::string s;
  for (int64_t d : t.dims) put_varint_field(s, 1, static_cast<uint64_t>(d));
  put_varint_field(s, 2, static_cast<uint64_t>(onnx_dtype(t.dtype)));
  if (!t.name.empty()) put_bytes_field(s, 8, t.name);
  put_bytes_field(s, 9, t.raw);
  return s;
}

std::string encode_model(const GraphProto& graph, int opset, const std::string& producer_version) {
  std::string s;
  // The IR version each opset was released with: 8 up to opset 18, 9 for 19 and 20, 10 for 21.
  put_varint_field(s, 1, opset <= 18 ? 8 : opset <= 20 ? 9 : 10);
  put_bytes_field(s, 2, "kiln");
  put_bytes_field(s, 3, producer_version);
  put_bytes_field(s, 7, encode_graph(graph));
  std::string opset_id;
  put_bytes_field(opset_id, 1, "");
  put_varint_field(opset_id, 2, static_cast<uint64_t>(opset));
  put_bytes_field(s, 8, opset_id);
  return s;
}

Attribute int_attr(const std::string& name, int64_t v) {
  Attribute a{name, Attribute::kInt};
  a.i = v;
  return a;
}
Attribute float_attr(const std::string& name, float v) {
  Attribute a{name, Attribute::kFloat};
  a.f = v;
  return a;
}
Attribute ints_attr(const std::string& name, std::vector<int64_t> v) {
  Attribute a{name, Attribute::kInts};
  a.ints = std::move(v);
  return a;
}
Attribute strings_attr(const std::string& name, std::vector<std::string> v) {
  Attribute a{name, Attribute::kStrings};
  a.strings = std::move(v);
  return a;
}
Attribute graph_attr(const std::string& name, const GraphProto& g) {
  Attribute a{name, Attribute::kGraph};
  a.tensor = encode_graph(g);
  return a;
}
Attribute tensor_attr(const std::string& name, const TensorData& t) {
  Attribute a{name, Attribute::kTensor};
  a.tensor = encode_tensor(t);
  return a;
}

}  // namespace kiln::io::onnx
