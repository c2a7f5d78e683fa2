#pragma once
// One trace of a kiln::function, as a graph a reader can inspect: the
// analogue of a tf.function's ConcreteFunction and its `graph`.
//
//   auto f = kiln::function(simple_relu);
//   auto cf = f.get_concrete_function(kiln::TensorSpec({}, kiln::int32));
//   std::cout << cf;                    // op list: name, type, inputs, output shapes and dtypes
//   std::cout << cf.as_graph_def();     // TensorFlow's text format of the GraphDef
//   write_file("relu.dot", cf.to_dot()); // Graphviz
//   kiln::summary::graph(cf);           // TensorBoard's graph view (kiln/io/summary.h)
//
// Each op is one device call the trace recorded (or one host step, such as an
// optimizer's update), after the graph passes ran. Tensors that the function
// reads but does not make are captures: "ReadVariableOp" inputs named by the
// variable's path, and "Const" for other captured tensors.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "kiln/core/dtype.h"
#include "kiln/core/shape.h"

namespace kiln {

struct TensorSpec;

/// One op of a traced graph (TensorFlow's NodeDef).
struct GraphOp {
  std::string name;                 ///< unique in the graph ("Mul", "Mul_1")
  std::string type;                 ///< TensorFlow's op type ("Mul", "MatMul", "Placeholder")
  std::vector<std::string> inputs;  ///< op names; ":k" selects output k > 0
  std::vector<Shape> output_shapes;  ///< The shape of each output.
  std::vector<DType> output_dtypes;  ///< The dtype of each output.
};

/// One trace of a kiln::function as an inspectable graph (tf.function's ConcreteFunction).
/// Tensors the function reads but does not make are captures ("ReadVariableOp", "Const").
class ConcreteFunction {
 public:
  /// An empty function.
  ConcreteFunction() = default;
  /// A function named `name` with its signature lines and ops (made by traces).
  ConcreteFunction(std::string name, std::vector<std::string> inputs, std::vector<std::string> outputs,
                   std::vector<GraphOp> ops, std::vector<GraphOp> executed = {});
  /// The kiln::function's name.
  const std::string& name() const { return name_; }
  /// The signature: one line per argument and one per output.
  const std::vector<std::string>& structured_input_signature() const { return inputs_; }
  /// One line per output.
  const std::vector<std::string>& structured_outputs() const { return outputs_; }
  /// Placeholders, captures, then the recorded ops in execution order, then one
  /// "Identity" per output, as TensorFlow names a function's results.
  const std::vector<GraphOp>& operations() const { return ops_; }
  /// The ops a replay runs: operations() after the graph passes (fused
  /// element-wise chains appear as one "FusedElementwise" op).
  const std::vector<GraphOp>& executed_operations() const { return executed_; }
  /// A table: name, type, inputs, output shapes and dtypes.
  std::string to_string() const;
  /// Graphviz DOT: one box per op, one edge per input, labelled with its shape.
  std::string to_dot() const;
  /// TensorFlow's text format of the GraphDef (what `graph.as_graph_def()` prints).
  std::string as_graph_def() const;

 private:
  std::string name_;
  std::vector<std::string> inputs_, outputs_;
  std::vector<GraphOp> ops_, executed_;
};

std::ostream& operator<<(std::ostream& os, const ConcreteFunction& f);  ///< Prints to_string().

}  // namespace kiln
