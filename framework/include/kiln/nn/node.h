#pragma once
// Functional-graph bookkeeping: calling a layer on symbolic tensors records a
// Node. A symbolic tensor remembers the node (and output index) that made it.
// Ownership runs from outputs back to inputs: tensor -> node -> layer and input
// tensors, so a graph stays alive as long as its output tensors do.
#include <memory>
#include <vector>

#include "kiln/core/tensor.h"
#include "kiln/nn/call_kwargs.h"

namespace kiln {

class Layer;

/// One call of a layer on symbolic tensors: a node of a functional model's graph
/// (Keras's Node). Output tensors own their node, which owns its layer and inputs.
class Node {
 public:
  std::shared_ptr<Layer> layer;  ///< The layer called.
  std::vector<Tensor> inputs;                       ///< symbolic inputs
  std::vector<std::weak_ptr<TensorImpl>> outputs;   ///< weak: outputs own the node
  bool list_call = false;                           ///< layer called with a list
  /// Keyword arguments of the call; tensor-valued ones are graph edges like inputs.
  CallKwargs kwargs;
  /// The output tensors still alive.
  std::vector<Tensor> output_tensors() const;
};

/// Where a symbolic tensor comes from (Keras's _keras_history).
struct KerasHistory {
  std::shared_ptr<Node> node;  ///< The node that made the tensor.
  int index = 0;  ///< Which of the node's outputs it is.
};

/// The node and output index that produced a symbolic tensor (nullptr for none).
const KerasHistory* keras_history(const Tensor& t);
/// Records that `t` is output `index` of `node`.
void set_keras_history(const Tensor& t, std::shared_ptr<Node> node, int index);

}  // namespace kiln
