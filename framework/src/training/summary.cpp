// model.summary() in the tf.keras 2 format (layer_utils.print_summary).
#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>

#include "kiln/nn/input_layer.h"
#include "kiln/training/model.h"
#include "kiln/nn/node.h"

namespace kiln {

namespace {
std::string with_commas(int64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

/// tf.keras print_row: fixed columns, long fields wrapped onto extra lines
/// (breaking after "),", "},", "]," or "',").
void print_row(std::ostream& os, std::vector<std::string> fields, const std::vector<int>& positions) {
  auto any_left = [&] {
    for (const auto& f : fields)
      if (!f.empty()) return true;
    return false;
  };
  do {
    std::string line;
    for (std::size_t col = 0; col < fields.size(); ++col) {
      int start = col > 0 ? positions[col - 1] : 0;
      int end = positions[col];
      int space = col != positions.size() - 1 ? 2 : 0;
      std::size_t cutoff = static_cast<std::size_t>(std::max(end - start - space, 0));
      std::string fit = fields[col].substr(0, cutoff);
      std::size_t best = std::string::npos;
      for (const char* cond : {"),", "},", "],", "',"}) {
        auto p = fit.find(cond);
        if (p != std::string::npos) best = std::min(best, p + 2);
      }
      if (best != std::string::npos) {
        cutoff = best;
        fit = fit.substr(0, cutoff);
      }
      if (col == 0) line += " ";
      line += fit;
      line += std::string(static_cast<std::size_t>(space), ' ');
      fields[col] = fields[col].size() > cutoff ? fields[col].substr(cutoff) : "";
      if (static_cast<int>(line.size()) < positions[col]) line += std::string(positions[col] - line.size(), ' ');
    }
    os << line << "\n";
  } while (any_left());
}

std::string shape_text(const std::vector<Shape>& shapes, bool as_list) {
  if (shapes.empty()) return "multiple";
  if (shapes.size() == 1 && !as_list) return shapes[0].to_string();
  std::string s = "[";
  for (std::size_t i = 0; i < shapes.size(); ++i) s += (i ? ", " : "") + shapes[i].to_string();
  return s + "]";
}
}  // namespace

std::vector<std::pair<LayerPtr, std::string>> Model::summary_rows() const {
  std::vector<std::pair<LayerPtr, std::string>> rows;
  for (const auto& l : layers()) {
    std::string text = "multiple";
    std::vector<std::shared_ptr<Node>> nodes;
    for (const auto& n : l->inbound_nodes())
      if (!is_functional() || std::find(nodes_.begin(), nodes_.end(), n) != nodes_.end()) nodes.push_back(n);
    // A layer called more than once (shared) has no single output shape: "multiple".
    if (nodes.size() == 1) {
      std::vector<Shape> shapes;
      for (const auto& t : nodes[0]->output_tensors())
        if (t.defined()) shapes.push_back(t.shape());
      // tf.keras prints an InputLayer's shape as a list: [(None, 3)]
      text = shape_text(shapes, dynamic_cast<InputLayerImpl*>(l.get()) != nullptr);
    }
    rows.emplace_back(l, text);
  }
  return rows;
}

bool Model::summary_sequential_like() const {
  if (!is_functional()) return true;
  // Like tf.keras: a chain where every node has one input and no layer is shared.
  for (const auto& n : nodes_)
    if (n->inputs.size() > 1) return false;
  std::set<const Node*> in_graph;
  for (const auto& n : nodes_) in_graph.insert(n.get());
  for (const auto& l : graph_layers_) {
    int count = 0;
    for (const auto& n : l->inbound_nodes())
      if (in_graph.count(n.get())) ++count;
    if (count > 1) return false;
  }
  // Several nodes consuming one tensor is a branch: not sequential either.
  std::set<uint64_t> consumed;
  for (const auto& n : nodes_)
    for (const auto& t : n->inputs)
      if (!consumed.insert(t.id()).second) return false;
  return outputs_.size() == 1 && inputs_.size() == 1;
}

void Model::summary(std::ostream& os, int line_length) const {
  const bool seq = summary_sequential_like();
  std::vector<int> positions;
  std::vector<std::string> header;
  if (seq) {
    line_length = line_length > 0 ? line_length : 65;
    positions = {static_cast<int>(line_length * 0.45), static_cast<int>(line_length * 0.85), line_length};
    header = {"Layer (type)", "Output Shape", "Param #"};
  } else {
    line_length = line_length > 0 ? line_length : 98;
    positions = {static_cast<int>(line_length * 0.33), static_cast<int>(line_length * 0.55),
                 static_cast<int>(line_length * 0.67), line_length};
    header = {"Layer (type)", "Output Shape", "Param #", "Connected to"};
  }
  os << "Model: \"" << name() << "\"\n";
  os << std::string(static_cast<std::size_t>(line_length), '_') << "\n";
  print_row(os, header, positions);
  os << std::string(static_cast<std::size_t>(line_length), '=') << "\n";
  std::set<const Node*> in_graph;
  for (const auto& n : nodes_) in_graph.insert(n.get());
  auto rows = summary_rows();
  for (const auto& [layer, shape] : rows) {
    std::vector<std::string> fields = {layer->name() + " (" + layer->class_name() + ")", shape,
                                       std::to_string(layer->count_params())};
    if (!seq) {
      std::string conn = "[";
      bool first = true;
      for (const auto& n : layer->inbound_nodes()) {
        if (!in_graph.count(n.get())) continue;
        for (const auto& t : n->inputs) {
          const KerasHistory* h = keras_history(t);
          if (!h) continue;
          // node index of h->node within its layer's inbound nodes
          int node_index = 0;
          auto in_nodes = h->node->layer->inbound_nodes();
          for (std::size_t k = 0; k < in_nodes.size(); ++k)
            if (in_nodes[k] == h->node) node_index = static_cast<int>(k);
          conn += (first ? "'" : ", '") + h->node->layer->name() + "[" + std::to_string(node_index) + "][" +
                  std::to_string(h->index) + "]'";
          first = false;
        }
      }
      conn += "]";
      fields.push_back(conn);
    }
    print_row(os, fields, positions);
    os << std::string(static_cast<std::size_t>(line_length), ' ') << "\n";
  }
  os << std::string(static_cast<std::size_t>(line_length), '=') << "\n";
  int64_t trainable = 0, non_trainable = 0;
  for (const auto& v : trainable_variables()) trainable += v.shape().num_elements();
  for (const auto& v : non_trainable_variables()) non_trainable += v.shape().num_elements();
  os << "Total params: " << with_commas(trainable + non_trainable) << "\n";
  os << "Trainable params: " << with_commas(trainable) << "\n";
  os << "Non-trainable params: " << with_commas(non_trainable) << "\n";
  os << std::string(static_cast<std::size_t>(line_length), '_') << "\n";
}

void Model::summary() const { summary(std::cout); }

std::string Model::summary_string(int line_length) const {
  std::ostringstream s;
  summary(s, line_length);
  return s.str();
}

}  // namespace kiln
