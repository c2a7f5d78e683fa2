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

class Node {
 public:
  std::shared_ptr<Layer> layer;
  std::vector<Tensor> inputs;                       // symbolic inputs
  std::vector<std::weak_ptr<TensorImpl>> outputs;   // weak: outputs own the node
  bool list_call = false;                           // layer called with a list
  /// Keyword arguments of the call; tensor-valued ones are graph edges like inputs.
  CallKwargs kwargs;
  std::vector<Tensor> output_tensors() const;
};

struct KerasHistory {
  std::shared_ptr<Node> node;
  int index = 0;
};

/// The node and output index that produced a symbolic tensor (nullptr for none).
const KerasHistory* keras_history(const Tensor& t);
void set_keras_history(const Tensor& t, std::shared_ptr<Node> node, int index);

}  // namespace kiln
