#pragma once
// The order Keras gives a functional graph (keras/src/ops/function.py,
// _build_map and map_graph): nodes from a depth-first walk of the outputs,
// operations by decreasing depth, ties by first visit. That order is a
// model's `layers`, its config's layer list, the legacy .h5 `layer_names`
// and the class-name counters of .keras weight paths, so files only match
// when it is followed exactly.
#include <memory>
#include <vector>

#include "kiln/core/tensor.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/node.h"

namespace kiln::detail {

struct GraphOrder {
  /// Every node of the graph, each after the nodes that feed it (Keras's nodes_in_decreasing_depth).
  std::vector<std::shared_ptr<Node>> nodes;
  /// Every operation (layers, keras.ops nodes, input layers) in Keras's `operations` order.
  std::vector<LayerPtr> operations;
};

/// Walks the graph between `inputs` (InputLayer tensors) and `outputs`. A
/// cycle, or an output that depends on an input layer not in `inputs`, is a
/// ValueError.
GraphOrder keras_graph_order(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs);

/// The tensors a node consumes, in Keras's order: positional inputs, then
/// keyword tensors by sorted keyword (optree flattens dicts by key).
std::vector<Tensor> node_input_tensors(const Node& node);

}  // namespace kiln::detail
