#pragma once
// Private: reads the ONNX files Kiln writes (onnx_proto.h's subset of
// ModelProto) back into their structs. Every length, count and size is checked
// against the bytes that hold it; a truncated or corrupt file is an IOError
// naming the file and where the damage is, never a crash or a huge allocation.
#include <string>

#include "io/onnx/onnx_proto.h"

namespace kiln::io::onnx {

struct ModelData {
  GraphProto graph;
  int64_t opset = 0;
};

/// Parses `bytes`; `file` names the source in errors.
ModelData decode_model(const std::string& bytes, const std::string& file);
/// Parses an encoded GraphProto (a Loop's body).
GraphProto decode_graph(const std::string& bytes, const std::string& file);
/// Parses an encoded TensorProto (a Constant's value attribute).
TensorData decode_tensor(const std::string& bytes, const std::string& file);

}  // namespace kiln::io::onnx
