// kiln::cond: eagerly a C++ if; inside a trace one "If" node over two traced
// branches, whose gradient is an "If" over the two branches' gradients.
#include "kiln/graph/control_flow.h"

#include <memory>
#include <unordered_set>
#include <utility>

#include "backend/backend.h"
#include "backend/recording.h"
#include "graph/control_flow_internal.h"
#include "graph/subgraph.h"
#include "kiln/core/error.h"

namespace kiln::graph {

void check_pred(const Tensor& pred, const char* op) {
  if (!pred.defined()) throw ValueError(std::string(op) + ": the predicate is an undefined tensor");
  if (pred.size() != 1)
    throw ValueError(std::string(op) + ": the predicate must be a scalar boolean tensor, but received shape " +
                     pred.shape().to_string() + " (" + std::to_string(pred.size()) + " elements)");
}

namespace {

void check_branches(const std::vector<Tensor>& t, const std::vector<Tensor>& f) {
  bool same = t.size() == f.size();
  for (std::size_t i = 0; same && i < t.size(); ++i) same = t[i].shape() == f[i].shape() && t[i].dtype() == f[i].dtype();
  if (same) return;
  throw ValueError(
      "kiln::cond: true_fn and false_fn must have the same number, type, and overall structure of return values, "
      "with the same shapes and dtypes (an If's outputs have one shape and dtype whichever branch runs).\n\n"
      "true_fn output: " + specs(t) + "\n\nfalse_fn output: " + specs(f));
}

/// Union of two capture lists by tensor id, in order.
std::vector<Tensor> merge(std::vector<Tensor> a, const std::vector<Tensor>& b) {
  std::unordered_set<uint64_t> ids;
  for (const auto& t : a) ids.insert(t.id());
  for (const auto& t : b)
    if (ids.insert(t.id()).second) a.push_back(t);
  return a;
}

const TapeSlice* slice_for(const Subgraph& g, const TapeState* tape) {
  for (const auto& s : g.slices)
    if (s.tape == tape) return &s;
  return nullptr;
}

/// What the gradient rule of one If on one tape keeps.
struct CondGrad {
  Tensor taken;  // the forward If's decision, so the gradient follows the branch that ran
  TapeSlice t, f;
  std::vector<Tensor> t_out, f_out, captures;
};

Grads cond_backward(const CondGrad& g, const Grads& dys, const Needs& needs) {
  std::vector<Tensor> wanted;
  for (std::size_t i = 0; i < g.captures.size(); ++i)
    if (needs[i]) wanted.push_back(g.captures[i]);
  auto grads = cond_list(
      g.taken, [&] { return slice_vjp(g.t, g.t_out, dys, wanted); },
      [&] { return slice_vjp(g.f, g.f_out, dys, wanted); });
  Grads out(g.captures.size());
  for (std::size_t i = 0, j = 0; i < g.captures.size(); ++i)
    if (needs[i]) out[i] = grads[j++];
  return out;
}

/// Registers the If on each tape its branches recorded on, as one op from the
/// branches' captures to its outputs.
void record_cond_gradient(const Tensor& taken, const Subgraph& tg, const Subgraph& fg, const std::vector<Tensor>& outs) {
  for (const auto& ts : tg.slices) {
    const TapeSlice* fs = slice_for(fg, ts.tape);
    TapeSlice empty;
    if (!fs) fs = &empty;
    auto caps = merge(slice_captures(ts), slice_captures(*fs));
    if (caps.empty()) continue;
    auto g = std::make_shared<CondGrad>(CondGrad{taken, ts, *fs, tg.outputs, fg.outputs, caps});
    push_entry(ts.tape, "If", caps, outs,
               [g](const Grads& dys, const Needs& needs) { return cond_backward(*g, dys, needs); });
  }
}

std::vector<Tensor> traced_cond(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn) {
  Subgraph tg = trace_subgraph(true_fn);
  Subgraph fg = trace_subgraph(false_fn);
  check_branches(tg.outputs, fg.outputs);
  std::vector<Tensor> outs = fresh_like(tg.outputs);
  Tensor taken = Tensor::empty({}, DType::bool_, pred.device());
  auto run = [pred, taken, tr = tg.rec, fr = fg.rec, to = tg.outputs, fo = fg.outputs, outs]() mutable {
    const bool p = read_pred(pred);
    {
      backend::RecordingPause unrecorded;
      backend::backend_for(taken.device()).fill(taken, p ? 1.0 : 0.0);
    }
    (p ? tr : fr)->replay();
    copy_all(p ? to : fo, outs);
  };
  backend::HostEffects fx;
  fx.type = "If";
  fx.reads = {pred};
  append_unique(fx.reads, external_reads(*tg.rec, tg.outputs));
  append_unique(fx.reads, external_reads(*fg.rec, fg.outputs));
  fx.writes = outs;
  fx.writes.push_back(taken);
  fx.branches = {{tg.rec, tg.outputs}, {fg.rec, fg.outputs}};
  backend::record_host_node(run, std::move(fx));
  record_cond_gradient(taken, tg, fg, outs);
  return outs;
}

}  // namespace

std::vector<Tensor> cond_list(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn) {
  check_pred(pred, "kiln::cond");
  if (backend::active_recording()) return traced_cond(pred, true_fn, false_fn);
  return pred.item<bool>() ? true_fn() : false_fn();
}

}  // namespace kiln::graph
