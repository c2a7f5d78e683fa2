#pragma once
// Private: runs an ONNX graph (the subset Kiln's exporter writes) with Kiln's
// own ops, so the result is differentiable: a GradientTape sees every op, and
// initializers bound to variables are read through them. Shape arithmetic
// (Shape, Gather, Concat, Mul on int64 sizes) is done on the host, so a
// reloaded graph with dynamic dimensions also runs inside a kiln::function.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/onnx/onnx_proto.h"
#include "kiln/autodiff/variable.h"
#include "kiln/core/error.h"
#include "kiln/core/tensor.h"

namespace kiln::io::onnx {

/// One value while a graph runs: a tensor, and its integers when they are
/// sizes known on the host.
struct RunValue {
  Tensor t;
  std::optional<std::vector<int64_t>> host;
};

class GraphRunner;

/// What an op implementation sees.
struct OpContext {
  const NodeProto& node;
  std::vector<const RunValue*> in;  // null for an omitted optional input
  const GraphRunner& runner;
  const Tensor& tensor(std::size_t i) const;
  /// Input i's integers (sizes, axes); read from the tensor when not known on the host.
  std::vector<int64_t> ints(std::size_t i) const;
  std::optional<int64_t> attr_int(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  std::vector<int64_t> attr_ints(const std::string& name) const;
  float attr_float(const std::string& name, float fallback) const;
  [[noreturn]] void fail(const std::string& why) const;
};

using OpImpl = std::function<std::vector<RunValue>(const OpContext&)>;
/// The ops the runner knows (io/onnx/onnx_runner_ops.cpp).
const std::map<std::string, OpImpl>& runner_ops();
/// RNN, LSTM, GRU, Squeeze and Unsqueeze (io/onnx/onnx_runner_rnn.cpp).
void add_recurrent_ops(std::map<std::string, OpImpl>& ops);

class GraphRunner {
 public:
  /// Initializers named in `variables` are read from those variables; the rest become constants.
  GraphRunner(GraphProto graph, const std::map<std::string, Variable>& variables, std::string file);
  // Loop bodies are keyed by their node's address in the graph held here.
  GraphRunner(const GraphRunner&) = delete;
  GraphRunner& operator=(const GraphRunner&) = delete;
  /// Runs the graph on inputs matching its input declarations (checked: dtype, rank, fixed sizes).
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) const;
  const GraphProto& graph() const { return g_; }
  const std::string& file() const { return file_; }
  /// Whether the inputs' dtypes and shapes fit the graph's declared inputs.
  bool accepts(const std::vector<Tensor>& inputs) const;
  /// "(float32[batch, 3], int32[batch, 12])": the declared inputs, for messages.
  std::string signature() const;

 private:
  GraphProto g_;
  std::string file_;
  using Values = std::map<std::string, RunValue>;
  /// Runs `g`'s nodes, reading and adding to `values` (a Loop body sees its outer graph's values).
  void exec(const GraphProto& g, Values& values) const;
  /// Rethrows `e` (being handled) with the file and node in front, as the same kind of error.
  [[noreturn]] void rethrow_naming_node(const Error& e, const NodeProto& n) const;
  std::vector<RunValue> loop(const NodeProto& n, const std::vector<const RunValue*>& in, const Values& outer) const;
  /// Checks that every node, in subgraphs too, is one the runner knows; decodes Loop bodies.
  void check_ops(const GraphProto& g);

  std::map<std::string, Variable> variables_;  // the ones this graph's own initializers read
  std::map<std::string, Variable> all_variables_;  // every variable, for Loop bodies' initializers
  std::map<std::string, RunValue> constants_;
  std::map<const NodeProto*, GraphProto> bodies_;
};

/// "float32[2, 3]": a tensor's dtype and shape, as signatures are printed.
std::string tensor_text(const Tensor& t);

/// Checks every node of `g` (not Loop bodies) against its op's signature:
/// input and output counts, required inputs named, attribute types and
/// lengths. Throws IOError naming `file` and the node (io/onnx/onnx_signatures.cpp).
void check_node_signatures(const GraphProto& g, const std::string& file);

/// Marks a Conv or pool node the runner runs on NHWC tensors (run_nhwc_in_place).
inline constexpr const char* kNhwcAttribute = "kiln_nhwc";
/// Marks a Conv node that applies relu to its output (fuse_conv_relu).
inline constexpr const char* kReluAttribute = "kiln_relu";
void fuse_conv_relu(GraphProto& g);
/// Rewrites Transpose -> Conv/MaxPool/AveragePool -> Transpose chains to run in NHWC (io/onnx/onnx_layout.cpp).
void run_nhwc_in_place(GraphProto& g);

/// A Kiln tensor holding an initializer's bytes.
Tensor tensor_from(const TensorData& t);

}  // namespace kiln::io::onnx
