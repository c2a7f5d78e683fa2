// Graph passes over a recorded trace. Each keeps the replay's results equal to
// running the recorded nodes one by one.
#include "graph/passes.h"

#include <map>
#include <memory>

#include "core/tensor_impl.h"

namespace kiln::graph {

using backend::Node;
using backend::Recording;

const Storage* storage_of(const Tensor& t) { return t.impl()->storage.get(); }

bool writes(const Node& n, const Tensor& t) {
  for (const auto& o : n.outputs)
    if (o.impl() == t.impl() || storage_of(o) == storage_of(t)) return true;
  return false;
}

namespace {

bool reads(const Node& n, const Storage* s) {
  for (const auto& i : n.inputs)
    if (storage_of(i) == s) return true;
  return false;
}

/// Gives the snapshot's buffer back its own memory when the last replay closure goes.
struct AliasGuard {
  std::shared_ptr<Storage> snapshot;
  void* own = nullptr;
  ~AliasGuard() { snapshot->data = own; }
};

/// Whether every use of the snapshot `s` made by node i comes before the
/// variable `v` is next written (or an opaque host node might write it).
bool snapshot_outlived_by_variable(const std::vector<Node>& nodes, std::size_t i, const Tensor& v, const Tensor& s,
                                   const std::vector<Tensor>& outputs) {
  const Storage* ss = storage_of(s);
  std::size_t first_write = nodes.size();
  for (std::size_t j = i + 1; j < nodes.size() && first_write == nodes.size(); ++j)
    if ((nodes[j].host && nodes[j].opaque) || writes(nodes[j], v)) first_write = j;
  std::size_t last_read = i;
  for (std::size_t j = 0; j < nodes.size(); ++j) {
    if (j != i && (writes(nodes[j], s) || (nodes[j].host && nodes[j].opaque))) return false;
    if (j > i && reads(nodes[j], ss)) last_read = j;
  }
  for (const auto& o : outputs)
    if (o.defined() && storage_of(o) == ss) last_read = nodes.size();
  return last_read < first_write;
}

}  // namespace

int alias_variable_reads(Recording& rec, const std::vector<Tensor>& outputs) {
  auto& nodes = rec.nodes();
  int aliased = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    Node& n = nodes[i];
    if (n.type != "ReadVariableOp" || n.host || n.inputs.size() != 1 || n.outputs.size() != 1) continue;
    const Tensor v = n.inputs[0], s = n.outputs[0];
    if (v.device() != s.device() || !snapshot_outlived_by_variable(nodes, i, v, s, outputs)) continue;
    // Each replay points the snapshot at the variable's current buffer (which a
    // copy-on-write between calls may have moved) instead of copying it.
    auto guard = std::make_shared<AliasGuard>();
    guard->snapshot = s.impl()->storage;
    guard->own = guard->snapshot->data;
    n.run = [guard, var = v.impl()] { guard->snapshot->data = var->storage->data; };
    ++aliased;
  }
  return aliased;
}

namespace {

/// The backend that fuses `n`, or null when `n` is not a fusible element-wise node.
backend::Backend* fusible(const Node& n) {
  if (n.host || (n.unary < 0 && n.binary < 0) || n.outputs.size() != 1) return nullptr;
  const Tensor& out = n.outputs[0];
  for (const auto& in : n.inputs)
    if (in.dtype() != out.dtype() || in.device() != out.device() || (in.size() != out.size() && in.size() != 1))
      return nullptr;
  backend::Backend& be = backend::backend_for(out.device());
  return be.can_fuse(out.dtype(), n.unary, n.binary) ? &be : nullptr;
}

bool same_group(const Node& a, const Node& b) {
  const Tensor &x = a.outputs[0], &y = b.outputs[0];
  return x.dtype() == y.dtype() && x.size() == y.size() && x.device() == y.device();
}

Node fused_node(const std::vector<Node>& group, backend::Backend& be) {
  backend::ElementwiseProgram p;
  p.dtype = group[0].outputs[0].dtype();
  p.n = group[0].outputs[0].size();
  std::map<const Storage*, int> index;
  auto slot = [&](const Tensor& t) {
    auto [it, fresh] = index.emplace(storage_of(t), static_cast<int>(p.buffers.size()));
    if (fresh) p.buffers.push_back(t);
    return it->second;
  };
  Node f;
  f.type = "FusedElementwise";
  std::vector<std::function<void()>> one_by_one;
  std::map<const Storage*, bool> listed;  // buffers already among the fused node's inputs or outputs
  for (const auto& n : group) {
    backend::ElementwiseProgram::Step s{n.unary, n.binary, slot(n.inputs[0]),
                                        n.inputs.size() > 1 ? slot(n.inputs[1]) : -1, slot(n.outputs[0])};
    p.steps.push_back(s);
    f.label += (f.label.empty() ? "" : "+") + n.type;
    for (const auto& in : n.inputs)  // only what the chain reads from outside
      if (listed.emplace(storage_of(in), true).second) f.inputs.push_back(in);
    if (listed.emplace(storage_of(n.outputs[0]), true).second) f.outputs.push_back(n.outputs[0]);
    one_by_one.push_back(n.run);
  }
  f.run = [&be, p = std::move(p), one_by_one = std::move(one_by_one)] {
    if (be.fused_elementwise(p)) return;
    for (const auto& run : one_by_one) run();
  };
  return f;
}

}  // namespace

int fuse_elementwise(Recording& rec) {
  std::vector<Node> out;
  int folded = 0;
  auto& nodes = rec.nodes();
  for (std::size_t i = 0; i < nodes.size();) {
    backend::Backend* be = fusible(nodes[i]);
    std::size_t j = i + 1;
    while (be && j < nodes.size() && fusible(nodes[j]) == be && same_group(nodes[i], nodes[j])) ++j;
    if (j - i < 2) {
      out.push_back(std::move(nodes[i++]));
      continue;
    }
    std::vector<Node> group(std::make_move_iterator(nodes.begin() + static_cast<std::ptrdiff_t>(i)),
                            std::make_move_iterator(nodes.begin() + static_cast<std::ptrdiff_t>(j)));
    out.push_back(fused_node(group, *be));
    folded += static_cast<int>(j - i);
    i = j;
  }
  nodes = std::move(out);
  return folded;
}

int fold_constants(Recording& rec, bool executed) {
  auto& nodes = rec.nodes();
  std::map<const Storage*, int> writers;
  for (const auto& n : nodes)
    for (const auto& o : n.outputs) ++writers[storage_of(o)];
  // Constant: written once, by a Fill or by a kernel that reads only constants.
  std::map<const Storage*, bool> constant;
  std::vector<Node> kept;
  int folded = 0;
  for (auto& n : nodes) {
    bool fold = !n.host && !n.outputs.empty() && (n.type == "Fill" || !n.inputs.empty());
    for (const auto& in : n.inputs) fold = fold && constant.count(storage_of(in));
    for (const auto& o : n.outputs) fold = fold && writers[storage_of(o)] == 1;
    if (!fold) {
      kept.push_back(std::move(n));
      continue;
    }
    // Its outputs keep the values the trace computed (computed now, once, when
    // the trace did not execute); replays need not compute them again.
    if (!executed) n.run();
    for (const auto& o : n.outputs) constant[storage_of(o)] = true;
    ++folded;
  }
  nodes = std::move(kept);
  return folded;
}

Recording optimize(const Recording& rec, const std::vector<Tensor>& outputs, const std::vector<Tensor>& placeholders,
                   bool executed) {
  Recording plan = rec;
  alias_variable_reads(plan, outputs);
  fold_constants(plan, executed);
  fuse_elementwise(plan);
  fuse_conv_pool(plan, outputs);
  std::vector<Tensor> apart = outputs;
  apart.insert(apart.end(), placeholders.begin(), placeholders.end());
  plan_memory(plan, apart);
  return plan;
}

}  // namespace kiln::graph
