// A recording as a graph: each buffer is named by the op that last wrote it.
#include "graph/describe.h"

#include <map>

#include "core/tensor_impl.h"

namespace kiln::graph {

namespace {

class Namer {
 public:
  /// A fresh name for an op of `type`: the type, then type_1, type_2, ...
  std::string unique(const std::string& base) {
    int& n = counts_[base];
    std::string name = n == 0 ? base : base + "_" + std::to_string(n);
    ++n;
    return name;
  }

 private:
  std::map<std::string, int> counts_;
};

GraphOp op_for(std::string name, std::string type, const std::vector<Tensor>& outs) {
  GraphOp op{std::move(name), std::move(type), {}, {}, {}};
  for (const auto& t : outs) {
    op.output_shapes.push_back(t.shape());
    op.output_dtypes.push_back(t.dtype());
  }
  return op;
}

struct Builder {
  std::vector<GraphOp> ops;
  std::map<const Storage*, std::string> writer;  // buffer -> "op" or "op:k"
  Namer names;

  /// The name a node's input goes by, adding a capture the first time a buffer
  /// is read that nothing in the graph wrote.
  std::string source(const Tensor& t, const backend::Node& reader) {
    const Storage* s = t.impl()->storage.get();
    if (auto it = writer.find(s); it != writer.end()) return it->second;
    const bool variable = reader.type == "ReadVariableOp" && !reader.label.empty();
    GraphOp cap = op_for(names.unique(variable ? reader.label : "Const"), variable ? "VarHandleOp" : "Const", {t});
    writer[s] = cap.name;
    ops.push_back(cap);
    return cap.name;
  }

  void add(const backend::Node& n) {
    GraphOp op = op_for("", n.type, n.outputs);
    for (const auto& in : n.inputs) op.inputs.push_back(source(in, n));
    op.name = names.unique(n.type == "ReadVariableOp" && !n.label.empty() ? n.label + "/Read" : n.type);
    for (std::size_t k = 0; k < n.outputs.size(); ++k)
      writer[n.outputs[k].impl()->storage.get()] = k == 0 ? op.name : op.name + ":" + std::to_string(k);
    ops.push_back(std::move(op));
  }
};

}  // namespace

namespace {

std::vector<GraphOp> ops_of(const std::vector<Tensor>& placeholders, const backend::Recording& rec,
                            const std::vector<Tensor>& outputs, std::vector<std::string>* out_specs) {
  Builder b;
  for (std::size_t i = 0; i < placeholders.size(); ++i) {
    GraphOp p = op_for(b.names.unique("args_" + std::to_string(i)), "Placeholder", {placeholders[i]});
    b.writer[placeholders[i].impl()->storage.get()] = p.name;
    b.ops.push_back(std::move(p));
  }
  for (const auto& n : rec.nodes()) b.add(n);
  backend::Node result;
  for (const auto& t : outputs) {
    if (!t.defined()) continue;
    GraphOp o = op_for(b.names.unique("Identity"), "Identity", {t});
    o.inputs.push_back(b.source(t, result));
    if (out_specs) out_specs->push_back(o.name + ": " + t.shape().to_string() + " " + dtype_name(t.dtype()));
    b.ops.push_back(std::move(o));
  }
  return std::move(b.ops);
}

}  // namespace

ConcreteFunction describe(const std::string& name, const std::vector<std::string>& signature,
                          const std::vector<Tensor>& placeholders, const backend::Recording& rec,
                          const backend::Recording& plan, const std::vector<Tensor>& outputs) {
  std::vector<std::string> out_specs;
  std::vector<GraphOp> ops = ops_of(placeholders, rec, outputs, &out_specs);
  return ConcreteFunction(name, signature, std::move(out_specs), std::move(ops),
                          ops_of(placeholders, plan, outputs, nullptr));
}

}  // namespace kiln::graph
