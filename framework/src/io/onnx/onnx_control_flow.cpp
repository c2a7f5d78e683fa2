// Control flow as ONNX ops. kiln::cond: both branches are written and each
// output is a Where on the predicate, which is exact for branches without
// side effects (a branch that assigns a variable is refused). kiln::while_loop:
// ONNX's Loop, whose body graph runs the loop's body and then its condition
// on the new values; the first test of the condition is written before it.
#include "core/tensor_impl.h"
#include "io/onnx/onnx_writer.h"

namespace kiln::io::onnx {

namespace {

/// Whether a subgraph's nodes write only buffers it made (no variable assignments).
bool pure(const backend::Recording& rec) {
  for (const auto& node : rec.nodes())
    for (const auto& o : node.outputs)
      if (!rec.allocated_here(o.impl()->storage)) return false;
  return true;
}

}  // namespace

void GraphWriter::emit_if(const Pair& p) {
  for (const auto* n : {&p.a, &p.b})
    for (const auto& branch : n->branches)
      if (!pure(*branch.rec))
        fail("a branch writes a buffer it did not make (it assigns a variable), which an exported graph cannot "
             "do conditionally");
  const backend::Node* self = current_;
  std::string pred = in(p, 0);
  if (p.a.inputs[0].dtype() != DType::bool_) pred = cast(pred, DType::bool_);
  pred = node1("Reshape", {pred, ints({})});
  for (std::size_t k = 0; k < 2; ++k) emit_all(*p.a.branches[k].rec, *p.b.branches[k].rec);
  current_ = self;
  const auto& ta = p.a.branches[0].outputs;
  const auto& fa = p.a.branches[1].outputs;
  const auto& tb = p.b.branches[0].outputs;
  const auto& fb = p.b.branches[1].outputs;
  for (std::size_t j = 0; j < ta.size(); ++j) {
    const std::string t = value_of(ta[j], tb[j], ta[j].shape(), tb[j].shape());
    const std::string f = value_of(fa[j], fb[j], ta[j].shape(), tb[j].shape());
    set(p, j, node1("Where", {pred, t, f}), ta[j].dtype());
  }
  // The If's last output records which branch ran (for its gradient).
  if (p.a.outputs.size() > ta.size()) set(p, ta.size(), pred, DType::bool_);
}

std::string GraphWriter::predicate(const backend::Node& a, const backend::Node& b) {
  std::string v = value_of(a.branches[0].outputs[0], b.branches[0].outputs[0], a.branches[0].outputs[0].shape(),
                           b.branches[0].outputs[0].shape());
  if (a.branches[0].outputs[0].dtype() != DType::bool_) v = cast(v, DType::bool_);
  return node1("Reshape", {v, ints({})});
}

void GraphWriter::emit_while(const Pair& p) {
  const auto &a = p.a, &b = p.b;
  if (!pure(*a.branches[0].rec) || !pure(*a.branches[1].rec))
    fail("its condition or body assigns a variable, which an exported loop cannot do");
  const auto &vars_a = a.branches[2].outputs, &vars_b = b.branches[2].outputs;
  const auto &init_a = a.branches[3].outputs, &init_b = b.branches[3].outputs;
  const backend::Node* self = current_;
  auto bind = [&](const std::vector<std::string>& names) {
    for (std::size_t k = 0; k < vars_a.size(); ++k)
      values_[vars_a[k].impl()->storage.get()] = {names[k], vars_a[k].shape(), vars_b[k].shape(), vars_a[k].dtype()};
  };
  // The condition on the values passed in decides whether the first iteration runs.
  std::vector<std::string> init;
  for (std::size_t k = 0; k < vars_a.size(); ++k) init.push_back(value_of(init_a[k], init_b[k], vars_a[k].shape(), vars_b[k].shape()));
  bind(init);
  emit_all(*a.branches[0].rec, *b.branches[0].rec);
  current_ = self;
  const std::string first = predicate(a, b);
  // The body graph: (iteration, condition, variables...) -> (condition, variables...).
  const auto saved_values = values_;
  const auto saved_pending = pending_;
  const auto saved_symbols = symbol_values_;
  GraphProto outer = std::move(g_);
  g_ = GraphProto{};
  const std::string prefix = self->type + "_" + std::to_string(counts_["loop_body"]++);
  g_.name = prefix + "_body";
  g_.inputs.push_back({prefix + "_iteration", DType::int64, {}});
  g_.inputs.push_back({prefix + "_condition", DType::bool_, {}});
  std::vector<std::string> carried;
  for (std::size_t k = 0; k < vars_a.size(); ++k) {
    carried.push_back(prefix + "_in_" + std::to_string(k));
    g_.inputs.push_back({carried.back(), vars_a[k].dtype(), dims_of(vars_a[k].shape(), vars_b[k].shape())});
  }
  bind(carried);
  emit_all(*a.branches[1].rec, *b.branches[1].rec);
  std::vector<std::string> next;
  for (std::size_t k = 0; k < vars_a.size(); ++k)
    next.push_back(value_of(a.branches[1].outputs[k], b.branches[1].outputs[k], vars_a[k].shape(), vars_b[k].shape()));
  bind(next);
  emit_all(*a.branches[0].rec, *b.branches[0].rec);
  current_ = self;
  const std::string again = predicate(a, b);
  g_.nodes.push_back({"Identity", {again}, {prefix + "_condition_out"}, prefix + "_condition_out", {}});
  g_.outputs.push_back({prefix + "_condition_out", DType::bool_, {}});
  for (std::size_t k = 0; k < vars_a.size(); ++k) {
    const std::string out = prefix + "_out_" + std::to_string(k);
    g_.nodes.push_back({"Identity", {next[k]}, {out}, out, {}});
    g_.outputs.push_back({out, vars_a[k].dtype(), dims_of(vars_a[k].shape(), vars_b[k].shape())});
  }
  GraphProto body = std::move(g_);
  g_ = std::move(outer);
  values_ = saved_values;
  pending_ = saved_pending;
  symbol_values_ = saved_symbols;
  const std::string limit = a.branches.size() > 4 ? ints({a.branches[4].outputs[0].item<int64_t>()}) : "";
  std::vector<std::string> inputs{limit.empty() ? "" : node1("Reshape", {limit, ints({})}), first};
  inputs.insert(inputs.end(), init.begin(), init.end());
  const auto outs = node("Loop", inputs, {graph_attr("body", body)}, static_cast<int>(vars_a.size()));
  for (std::size_t k = 0; k < outs.size(); ++k) set(p, k, outs[k], vars_a[k].dtype(), vars_a[k].shape(), vars_b[k].shape());
}

}  // namespace kiln::io::onnx
