#pragma once
// Private: turns a recorded trace into an ONNX graph. The exported callable
// is traced twice (without running it) with different sizes for its dynamic
// dimensions; the two recordings must have the same ops, and every size that
// differs between them is written as a product of those dimensions, read from
// the graph inputs' shapes at run time. Each recorded backend call becomes one
// or a few standard ONNX ops (io/onnx/onnx_ops.h); buffers become values,
// named by the op that last wrote them.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend/recording.h"
#include "io/onnx/onnx_proto.h"

namespace kiln::io::onnx {

/// A dynamic dimension: every input axis `axis` given as -1 in the signature.
struct Symbol {
  std::string name;  // "batch" for axis 0
  int axis = 0;
  int input = 0;     // the first input that has it, read at run time
  int64_t small = 2, large = 2;  // its size in the two traces
};

struct Trace {
  std::vector<Tensor> inputs;
  backend::Recording rec;
  std::vector<Tensor> outputs;
};

/// The same recorded call in both traces.
struct Pair {
  const backend::Node& a;
  const backend::Node& b;
};

struct Settings {
  int opset = 17;
  std::string function;  // the exported function or model, for messages
  std::vector<std::string> input_names, output_names;
};

class GraphWriter {
 public:
  GraphWriter(const Trace& a, const Trace& b, std::vector<Symbol> symbols, Settings settings);
  GraphProto build();

  // What op emitters use.
  int opset() const { return settings_.opset; }
  /// The ONNX value holding input `i` of the call, with its own shape.
  std::string in(const Pair& p, std::size_t i);
  /// Input `i` viewed with these shapes (the same element count), reshaped when they differ from its value's.
  std::string in_as(const Pair& p, std::size_t i, const Shape& sa, const Shape& sb);
  /// Appends a node; returns its outputs' names ("Conv_3", "Conv_3:1").
  std::vector<std::string> node(const std::string& op, std::vector<std::string> inputs,
                                std::vector<Attribute> attrs = {}, int outputs = 1);
  std::string node1(const std::string& op, std::vector<std::string> inputs, std::vector<Attribute> attrs = {}) {
    return node(op, std::move(inputs), std::move(attrs))[0];
  }
  /// Makes `value` (holding `dtype` elements, shaped sa / sb) the content of output `i`, cast to its dtype.
  void set(const Pair& p, std::size_t i, const std::string& value, DType dtype, const Shape& sa, const Shape& sb);
  /// The same with the output's own shape.
  void set(const Pair& p, std::size_t i, const std::string& value, DType dtype);
  /// A 1-D int64 tensor holding these sizes: a constant, or computed from the inputs' shapes.
  std::string shape_tensor(const Shape& a, const Shape& b);
  std::string ints(const std::vector<int64_t>& v);
  /// A constant tensor (named here).
  std::string initializer(TensorData t);
  std::string scalar(double v, DType dtype);
  std::string cast(const std::string& value, DType to);
  /// The value of a number both traces agree on; else fail naming `what`.
  int64_t fixed(int64_t a, int64_t b, const std::string& what) const;
  /// Throws ValueError naming the exported function, and the op and layer being written.
  [[noreturn]] void fail(const std::string& why) const;

  /// A write of `block` (shaped by `len` over the destination's axes, placed at
  /// `start`) into part of output 0's buffer. Pieces accumulate until the buffer is read.
  struct Piece {
    std::string block;
    std::vector<int64_t> start_a, start_b, len_a, len_b;
  };
  void write_piece(const Pair& p, Piece piece);

 private:
  struct Value {
    std::string name;
    Shape a, b;
    DType dtype = DType::float32;
  };
  struct Pending {
    std::optional<Value> base;
    std::vector<Piece> pieces;
    Shape a, b;
    DType dtype = DType::float32;
  };
  std::string value_of(const Tensor& ta, const Tensor& tb, const Shape& sa, const Shape& sb);
  std::string capture(const Tensor& t, const Tensor& tb);
  std::string reshape(const Value& v, const Shape& sa, const Shape& sb);
  Value resolve(const Storage* key);
  std::string pad(const Pending& pd, const Piece& piece, const std::string& block);
  std::string symbol_tensor(std::size_t s);
  std::string dim_tensor(int64_t a, int64_t b);
  std::vector<Dim> dims_of(const Shape& a, const Shape& b) const;
  void emit(const Pair& p);
  /// A composite (of recording ra, and rb in the other trace) as one op, or as its nodes.
  void emit(const backend::Recording& ra, const backend::Composite& a, const backend::Recording& rb,
            const backend::Composite& b);
  /// Every node of two recordings of the same ops (a trace, or a branch in both traces).
  void emit_all(const backend::Recording& a, const backend::Recording& b);
  /// kiln::cond and kiln::while_loop (io/onnx/onnx_control_flow.cpp).
  void emit_if(const Pair& p);
  void emit_while(const Pair& p);
  /// A condition subgraph's answer as a bool scalar.
  std::string predicate(const backend::Node& a, const backend::Node& b);

  const Trace& ta_;
  const Trace& tb_;
  std::vector<Symbol> symbols_;
  Settings settings_;
  GraphProto g_;
  std::map<const Storage*, Value> values_;
  std::map<const Storage*, Pending> pending_;
  std::map<const Storage*, std::string> written_by_;  // buffers some node writes, by the first such op
  std::map<std::string, int> counts_;
  std::map<std::size_t, std::string> symbol_values_;
  const backend::Node* current_ = nullptr;  // the node being written, for messages
};

/// Writes the ONNX nodes for one recorded call (io/onnx/onnx_ops.cpp).
void emit_op(GraphWriter& w, const Pair& p);
/// Writes a composite op as one ONNX op when ONNX has one for it; false otherwise.
bool emit_composite(GraphWriter& w, const Pair& p);

}  // namespace kiln::io::onnx
