// Kiln's convolutions and pooling are NHWC, ONNX's NCHW, so the exporter
// writes each as Transpose -> Conv -> Transpose, and a runner that ran them as
// written would transpose twice more inside. This rewrite lets such a node
// read and write NHWC directly: it takes the first Transpose's input, writes
// the second Transpose's output, and the Transposes nothing else reads go.
// A Conv whose only reader is a Relu then applies it in its output pass, as
// Kiln's own Conv2D does.
#include <map>
#include <set>

#include "io/onnx/onnx_runner.h"

namespace kiln::io::onnx {

namespace {

bool is_transpose(const NodeProto& n, const std::vector<int64_t>& perm) {
  if (n.op_type != "Transpose") return false;
  for (const auto& a : n.attributes)
    if (a.name == "perm") return a.ints == perm;
  return false;
}

}  // namespace

void fuse_conv_relu(GraphProto& g) {
  std::map<std::string, std::vector<std::size_t>> readers;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& in : g.nodes[i].inputs) readers[in].push_back(i);
  std::set<std::string> graph_outputs;
  for (const auto& o : g.outputs) graph_outputs.insert(o.name);
  std::set<std::size_t> dropped;
  for (auto& n : g.nodes) {
    if (n.op_type != "Conv" || n.inputs.size() < 3 || n.outputs.size() != 1 || graph_outputs.count(n.outputs[0])) continue;
    const auto& r = readers[n.outputs[0]];
    if (r.size() != 1 || g.nodes[r[0]].op_type != "Relu") continue;
    n.outputs[0] = g.nodes[r[0]].outputs.at(0);
    n.attributes.push_back(int_attr(kReluAttribute, 1));
    dropped.insert(r[0]);
  }
  std::vector<NodeProto> kept;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (!dropped.count(i)) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
}

void run_nhwc_in_place(GraphProto& g) {
  fuse_conv_relu(g);  // first: the exporter writes Transpose -> Conv -> Relu -> Transpose
  std::map<std::string, std::size_t> producer;
  std::map<std::string, std::vector<std::size_t>> readers;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    for (const auto& o : g.nodes[i].outputs) producer[o] = i;
    for (const auto& in : g.nodes[i].inputs) readers[in].push_back(i);
  }
  std::set<std::string> graph_outputs;
  for (const auto& o : g.outputs) graph_outputs.insert(o.name);
  std::set<std::size_t> dropped;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    NodeProto& n = g.nodes[i];
    if (n.op_type != "Conv" && n.op_type != "MaxPool" && n.op_type != "AveragePool") continue;
    if (n.inputs.empty() || n.outputs.size() != 1) continue;
    auto in = producer.find(n.inputs[0]);
    const auto& out_readers = readers[n.outputs[0]];
    if (in == producer.end() || !is_transpose(g.nodes[in->second], {0, 3, 1, 2})) continue;
    if (out_readers.size() != 1 || graph_outputs.count(n.outputs[0]) ||
        !is_transpose(g.nodes[out_readers[0]], {0, 2, 3, 1}))
      continue;
    const std::size_t first = in->second, second = out_readers[0];
    const std::string nchw_in = n.inputs[0];
    n.inputs[0] = g.nodes[first].inputs.at(0);
    n.outputs[0] = g.nodes[second].outputs.at(0);
    n.attributes.push_back(int_attr(kNhwcAttribute, 1));
    dropped.insert(second);
    if (readers[nchw_in].size() == 1 && !graph_outputs.count(nchw_in)) dropped.insert(first);
  }
  std::vector<NodeProto> kept;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (!dropped.count(i)) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
}

}  // namespace kiln::io::onnx
