#pragma once
// Private: the parts of ONNX's protobuf messages (onnx/onnx.proto, IR version 8)
// an exported model uses, and their wire encoding. Written by hand with the
// TensorBoard writer's wire helpers, so exporting needs no protobuf library.
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/core/dtype.h"

namespace kiln::io::onnx {

/// TensorProto.DataType of a Kiln dtype.
int onnx_dtype(DType dtype);

struct Attribute {
  // ONNX's AttributeProto.AttributeType numbers; a file's other or damaged numbers read as kUndefined.
  enum Kind : int32_t {
    kUndefined = 0,
    kFloat = 1,
    kInt = 2,
    kString = 3,
    kTensor = 4,
    kGraph = 5,
    kFloats = 6,
    kInts = 7,
    kStrings = 8
  };
  std::string name;
  Kind kind = kInt;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::string tensor;  // an encoded TensorProto (kTensor), or GraphProto (kGraph)
};

struct NodeProto {
  std::string op_type;
  std::vector<std::string> inputs, outputs;
  std::string name;
  std::vector<Attribute> attributes;
};

/// One dimension of a graph input or output: a size, or a symbol ("batch").
struct Dim {
  int64_t value = -1;
  std::string param;
};

struct ValueInfo {
  std::string name;
  DType dtype = DType::float32;
  std::vector<Dim> dims;
};

struct TensorData {
  std::string name;
  DType dtype = DType::float32;
  std::vector<int64_t> dims;
  std::string raw;  // little-endian element bytes
};

struct GraphProto {
  std::string name;
  std::vector<NodeProto> nodes;
  std::vector<TensorData> initializers;
  std::vector<ValueInfo> inputs, outputs;
  std::string doc;
};

std::string encode_tensor(const TensorData& t);
std::string encode_graph(const GraphProto& g);
/// A ModelProto around `graph`, importing the default domain at `opset`.
std::string encode_model(const GraphProto& graph, int opset, const std::string& producer_version);

Attribute int_attr(const std::string& name, int64_t v);
Attribute float_attr(const std::string& name, float v);
Attribute ints_attr(const std::string& name, std::vector<int64_t> v);
Attribute tensor_attr(const std::string& name, const TensorData& t);
Attribute strings_attr(const std::string& name, std::vector<std::string> v);
Attribute graph_attr(const std::string& name, const struct GraphProto& g);

}  // namespace kiln::io::onnx
