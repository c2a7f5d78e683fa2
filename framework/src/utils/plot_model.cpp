// plot_model: the layer graph as Graphviz DOT, rendered by `dot` when present.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "kiln/core/error.h"
#include "kiln/nn/input_layer.h"
#include "kiln/training/model.h"
#include "kiln/nn/node.h"
#include "kiln/training/sequential.h"
#include "kiln/utils/plot.h"
#include "utils/shell.h"

namespace kiln::utils {

namespace {

using detail::shell_quote;

std::string html_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string dot_id(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}

std::string lower_ext(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return std::tolower(c); });
  return e;
}

std::string shapes_text(const std::vector<Shape>& shapes) {
  if (shapes.empty()) return "?";
  if (shapes.size() == 1) return shapes[0].to_string();
  std::string s = "[";
  for (std::size_t i = 0; i < shapes.size(); ++i) s += (i ? ", " : "") + shapes[i].to_string();
  return s + "]";
}

struct NodeInfo {
  LayerPtr layer;
  std::string in_shape, out_shape;
};

using Edges = std::vector<std::pair<std::string, std::string>>;

/// A Sequential model's graph: a chain [InputLayer] -> layer 0 -> layer 1 -> ...
void sequential_graph(const Sequential& model, std::vector<NodeInfo>& nodes, Edges& edges) {
  if (model.input_layer()) {
    const std::string s = model.input_layer()->batch_shape().to_string();
    nodes.push_back({model.input_layer(), s, s});
  }
  for (const auto& l : model.layers()) {
    NodeInfo n{l, "?", "?"};
    if (l->build_input_shape()) {
      n.in_shape = l->build_input_shape()->to_string();
      try {
        n.out_shape = l->compute_output_shape(*l->build_input_shape()).to_string();
      } catch (const std::exception&) {
        n.out_shape = "?";
      }
    }
    nodes.push_back(n);
  }
  for (std::size_t i = 1; i < nodes.size(); ++i) edges.emplace_back(nodes[i - 1].layer->name(), nodes[i].layer->name());
}

/// A functional model's graph: each layer once, with an edge from every layer
/// of the model that feeds one of its inbound nodes.
void functional_graph(const Model& model, std::vector<NodeInfo>& nodes, Edges& edges) {
  const auto layers = model.layers();
  std::set<const Layer*> in_model;
  for (const auto& l : layers) in_model.insert(l.get());
  std::set<std::pair<std::string, std::string>> seen_edges;
  for (const auto& l : layers) {
    NodeInfo n{l, "?", "?"};
    bool first = true;
    for (const auto& node : l->inbound_nodes()) {
      if (!node) continue;
      // The node belongs to this model when its inputs come from the model's layers (or it is an input).
      bool inside = node->inputs.empty();
      std::vector<std::string> sources;
      std::vector<Shape> in_shapes;
      for (const auto& t : node->inputs) {
        in_shapes.push_back(t.shape());
        const KerasHistory* kh = keras_history(t);
        if (kh && kh->node && kh->node->layer && in_model.count(kh->node->layer.get())) {
          inside = true;
          sources.push_back(kh->node->layer->name());
        }
      }
      if (!inside) continue;
      for (const auto& src : sources)
        if (seen_edges.insert({src, l->name()}).second) edges.emplace_back(src, l->name());
      if (first) {
        std::vector<Shape> out_shapes;
        for (const auto& t : node->output_tensors())
          if (t.defined()) out_shapes.push_back(t.shape());
        n.out_shape = shapes_text(out_shapes);
        n.in_shape = node->inputs.empty() ? n.out_shape : shapes_text(in_shapes);
        first = false;
      }
    }
    if (first) {
      if (auto* in = dynamic_cast<InputLayerImpl*>(l.get())) n.in_shape = n.out_shape = in->batch_shape().to_string();
      else if (l->build_input_shape()) n.in_shape = l->build_input_shape()->to_string();
    }
    nodes.push_back(n);
  }
}

}  // namespace

std::string model_to_dot(const Model& model, const PlotModelOptions& o) {
  std::vector<NodeInfo> nodes;
  Edges edges;
  if (const auto* seq = dynamic_cast<const Sequential*>(&model))
    sequential_graph(*seq, nodes, edges);
  else
    functional_graph(model, nodes, edges);

  std::ostringstream s;
  s << "digraph " << dot_id(model.name()) << " {\n"
    << "  graph [rankdir=" << dot_id(o.rankdir) << ", concentrate=true, dpi=" << o.dpi << "];\n"
    << "  node [shape=plaintext, fontname=\"Helvetica\", fontsize=11];\n"
    << "  edge [arrowsize=0.8];\n";
  for (const auto& n : nodes) {
    const std::string cls = n.layer->class_name();
    std::string head = o.show_layer_names ? "<b>" + html_escape(n.layer->name()) + "</b> (" + html_escape(cls) + ")"
                                          : "<b>" + html_escape(cls) + "</b>";
    s << "  " << dot_id(n.layer->name()) << " [label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" "
      << "cellpadding=\"4\"><tr><td colspan=\"2\" bgcolor=\"#dbe6f4\">" << head << "</td></tr>";
    if (o.show_shapes)
      s << "<tr><td>Input shape: " << html_escape(n.in_shape) << "</td><td>Output shape: "
        << html_escape(n.out_shape) << "</td></tr>";
    if (o.show_dtype) s << "<tr><td colspan=\"2\">dtype: " << dtype_name(n.layer->dtype()) << "</td></tr>";
    s << "</table>>];\n";
  }
  for (const auto& [a, b] : edges) s << "  " << dot_id(a) << " -> " << dot_id(b) << ";\n";
  s << "}\n";
  return s.str();
}

PlotModelResult plot_model(const Model& model, const std::string& path, const PlotModelOptions& options) {
  PlotModelResult r;
  const std::string ext = lower_ext(path);
  r.dot_path = ext == ".dot" ? path : std::filesystem::path(path).replace_extension(".dot").string();
  {
    std::ofstream f(r.dot_path, std::ios::binary);
    f << model_to_dot(model, options);
    f.close();
    if (!f) throw IOError("plot_model: cannot write '" + r.dot_path + "'");
  }
  if (ext == ".dot") {
    r.ok = true;
    r.output_path = r.dot_path;
    return r;
  }
  if (ext != ".svg" && ext != ".png" && ext != ".pdf") {
    r.message = "plot_model: cannot render '" + path + "': the extension must be .dot, .svg, .png or .pdf; wrote " +
                r.dot_path;
    return r;
  }
  if (std::system("command -v dot >/dev/null 2>&1") != 0) {
    r.message = "plot_model: Graphviz's `dot` was not found, so '" + path + "' was not rendered; wrote " + r.dot_path +
                " (install Graphviz, Debian package graphviz, then run: dot -T" + ext.substr(1) + " " + r.dot_path +
                " -o " + path + ")";
    return r;
  }
  // Plain -Tsvg sizes the table cells from estimated font metrics, so viewers
  // with other fonts clip the text; the cairo renderer measures the real glyphs.
  // Fall back to the plain renderer where the cairo plugin is missing.
  std::string cmd = "dot -T" + ext.substr(1) + (ext == ".svg" ? ":cairo" : "") + " " + shell_quote(r.dot_path) +
                    " -o " + shell_quote(path);
  int rc = std::system((cmd + " 2>/dev/null").c_str());
  if (rc != 0 && ext == ".svg") {
    cmd = "dot -Tsvg " + shell_quote(r.dot_path) + " -o " + shell_quote(path);
    rc = std::system((cmd + " 2>/dev/null").c_str());
  }
  if (rc != 0 || !std::filesystem::exists(path)) {
    r.message = "plot_model: '" + cmd + "' failed (exit status " + std::to_string(rc) + "); the graph is in " + r.dot_path;
    return r;
  }
  r.ok = true;
  r.output_path = path;
  return r;
}

}  // namespace kiln::utils
