// GraphDef serialization (tensorflow/core/framework/{graph,node_def,attr_value,tensor_shape}.proto).
#include "io/graph_def_proto.h"

#include "io/proto_wire.h"

namespace kiln::io {

using namespace wire;

namespace {

// tensorflow.DataType
int tf_type(DType d) {
  switch (d) {
    case DType::float32: return 1;
    case DType::float64: return 2;
    case DType::int32: return 3;
    case DType::uint8: return 4;
    case DType::int8: return 6;
    case DType::int64: return 9;
    case DType::bool_: return 10;
  }
  return 0;
}

// TensorShapeProto{dim = 2: Dim{size = 1}}
std::string shape_proto(const Shape& s) {
  std::string out;
  for (int64_t d = 0; d < s.rank(); ++d) {
    std::string dim;
    put_varint_field(dim, 1, static_cast<uint64_t>(s[d]));
    put_bytes_field(out, 2, dim);
  }
  return out;
}

// map<string, AttrValue> entries are messages {key = 1, value = 2}.
void put_attr(std::string& node, const std::string& key, const std::string& attr_value) {
  std::string entry;
  put_bytes_field(entry, 1, key);
  put_bytes_field(entry, 2, attr_value);
  put_bytes_field(node, 5, entry);
}

std::string node_proto(const GraphOp& op) {
  std::string n;
  put_bytes_field(n, 1, op.name);
  put_bytes_field(n, 2, op.type);
  for (const auto& in : op.inputs) put_bytes_field(n, 3, in);
  if (op.output_dtypes.empty()) return n;
  const bool source = op.type == "Placeholder" || op.type == "Const" || op.type == "VarHandleOp";
  std::string type_value;
  put_varint_field(type_value, 6, static_cast<uint64_t>(tf_type(op.output_dtypes[0])));  // AttrValue.type
  put_attr(n, source ? "dtype" : "T", type_value);
  std::string list;
  for (const auto& s : op.output_shapes) put_bytes_field(list, 7, shape_proto(s));  // ListValue.shape
  std::string shapes_value;
  put_bytes_field(shapes_value, 1, list);  // AttrValue.list
  put_attr(n, "_output_shapes", shapes_value);
  return n;
}

}  // namespace

std::string graph_def_proto(const ConcreteFunction& f) {
  std::string g;
  for (const auto& op : f.operations()) put_bytes_field(g, 1, node_proto(op));
  std::string versions;
  put_varint_field(versions, 1, 1286);  // VersionDef.producer: a TensorFlow 2 GraphDef version
  put_bytes_field(g, 4, versions);
  return g;
}

}  // namespace kiln::io
