// Keras's functional graph order (graph_order.h).
#include "training/graph_order.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "kiln/core/error.h"

namespace kiln::detail {

std::vector<Tensor> node_input_tensors(const Node& node) {
  std::vector<Tensor> out = node.inputs;
  std::vector<const CallKwargs::Item*> items;
  for (const auto& item : node.kwargs.items()) items.push_back(&item);
  std::stable_sort(items.begin(), items.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* item : items) out.insert(out.end(), item->second.tensors.begin(), item->second.tensors.end());
  return out;
}

namespace {

/// _build_map: a depth-first walk from each output, recording each operation
/// the first time it is reached (pre-order) and each node when it finishes.
struct Walk {
  std::set<uint64_t> input_ids;
  std::set<const Node*> finished, in_progress;
  std::vector<std::shared_ptr<Node>> nodes;
  std::unordered_map<const Layer*, int> first_visit;

  void visit(const Tensor& t, int output_index) {
    const KerasHistory* h = keras_history(t);
    if (!h) throw ValueError("Model: a tensor in the graph has no layer history");
    const Node* n = h->node.get();
    if (finished.count(n)) return;
    if (in_progress.count(n)) throw ValueError("Model: the graph has a cycle at layer '" + n->layer->name() + "'");
    const Layer* op = n->layer.get();
    if (!first_visit.count(op)) first_visit.emplace(op, static_cast<int>(first_visit.size()));
    in_progress.insert(n);
    if (n->inputs.empty()) {
      if (!input_ids.count(t.id()))
        throw ValueError("Model: output " + std::to_string(output_index) + " is not connected to the model's inputs: " +
                         "it depends on input layer '" + n->layer->name() + "', which was not passed to Model()");
    } else {
      for (const auto& in : node_input_tensors(*n)) visit(in, output_index);
    }
    in_progress.erase(n);
    finished.insert(n);
    nodes.push_back(h->node);
  }
};

}  // namespace

GraphOrder keras_graph_order(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) {
  Walk walk;
  for (const auto& t : inputs) walk.input_ids.insert(t.id());
  for (std::size_t i = 0; i < outputs.size(); ++i) walk.visit(outputs[i], static_cast<int>(i));

  // map_graph: a node's depth is the longest path from it to an output; an
  // operation takes the deepest of its nodes, as a shared layer must come
  // before every node that uses any of its calls.
  std::map<const Node*, int> node_depth;
  std::unordered_map<const Layer*, int> op_depth;
  std::vector<const Layer*> op_seen;  // insertion order, as Python's dict keeps it
  for (auto it = walk.nodes.rbegin(); it != walk.nodes.rend(); ++it) {
    const Node* n = it->get();
    int depth = node_depth.emplace(n, 0).first->second;
    auto [od, fresh] = op_depth.emplace(n->layer.get(), 0);
    if (fresh) op_seen.push_back(n->layer.get());
    depth = std::max(depth, od->second);
    od->second = depth;
    node_depth[n] = depth;
    for (const auto& in : node_input_tensors(*n)) {
      const Node* parent = keras_history(in)->node.get();
      if (!walk.finished.count(parent)) continue;
      int& d = node_depth[parent];
      d = std::max(d, depth + 1);
    }
  }
  std::unordered_map<const Layer*, LayerPtr> owner;
  for (const auto& n : walk.nodes) owner.emplace(n->layer.get(), n->layer);
  // Inputs that reach no output still belong to the model, at depth 0, first among their depth.
  for (const auto& t : inputs) {
    const auto& node = keras_history(t)->node;
    if (op_depth.emplace(node->layer.get(), 0).second) {
      op_seen.push_back(node->layer.get());
      walk.first_visit[node->layer.get()] = -1;
      owner.emplace(node->layer.get(), node->layer);
      walk.nodes.insert(walk.nodes.begin(), node);
    }
  }
  std::vector<const Layer*> ops = op_seen;
  std::stable_sort(ops.begin(), ops.end(), [&](const Layer* a, const Layer* b) {
    if (op_depth[a] != op_depth[b]) return op_depth[a] > op_depth[b];
    return walk.first_visit[a] < walk.first_visit[b];
  });
  GraphOrder order;
  order.nodes = std::move(walk.nodes);
  for (const Layer* op : ops) order.operations.push_back(owner.at(op));
  return order;
}

}  // namespace kiln::detail
