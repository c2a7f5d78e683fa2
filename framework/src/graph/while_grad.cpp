// The gradient of a traced while_loop: a "While" node that runs the body's
// vector-Jacobian product once per iteration the forward loop did, last
// first, each on that iteration's saved loop variables and body buffers.
#include <unordered_set>
#include <utility>

#include "backend/backend.h"
#include "graph/while_loop.h"

namespace kiln::graph {

namespace {

struct WhileGrad {
  std::shared_ptr<LoopState> loop;
  TapeSlice body;
  std::vector<Tensor> captures;
};

/// The floating loop variables' positions: the ones with gradients.
std::vector<std::size_t> floating_vars(const LoopState& s) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < s.vars.size(); ++k)
    if (autodiff::trackable(s.vars[k])) out.push_back(k);
  return out;
}

void accumulate(const std::vector<Tensor>& add, const std::vector<Tensor>& into) {
  backend::RecordingPause unrecorded;
  for (std::size_t i = 0; i < add.size(); ++i) {
    Tensor acc = into[i];
    backend::backend_for(acc.device()).binary(backend::BinaryOp::add, acc, add[i], acc);
  }
}

void zero(const std::vector<Tensor>& ts) {
  backend::RecordingPause unrecorded;
  for (Tensor t : ts) backend::backend_for(t.device()).fill(t, 0.0);
}

Grads while_backward(const WhileGrad& g, const Grads& dys) {
  const LoopState& s = *g.loop;
  const auto fv = floating_vars(s);
  std::vector<Tensor> seed_like, sources, dys_f;
  for (std::size_t k : fv) {
    seed_like.push_back(s.body_out[k]);
    sources.push_back(s.vars[k]);
    dys_f.push_back(dys[k]);
  }
  const std::vector<Tensor> seeds = fresh_like(seed_like);
  std::vector<Tensor> dy_all(s.body_out.size());
  for (std::size_t j = 0; j < fv.size(); ++j) dy_all[fv[j]] = seeds[j];
  sources.insert(sources.end(), g.captures.begin(), g.captures.end());
  // The product for one iteration, traced once; the node replays it per iteration.
  Subgraph vjp = trace_subgraph([&] { return slice_vjp(g.body, s.body_out, dy_all, sources); });
  const auto split = vjp.outputs.begin() + static_cast<std::ptrdiff_t>(fv.size());
  const std::vector<Tensor> d_vars(vjp.outputs.begin(), split), d_caps(split, vjp.outputs.end());
  const std::vector<Tensor> acc_vars = fresh_like(d_vars), acc_caps = fresh_like(d_caps);
  auto run = [loop = g.loop, rec = vjp.rec, seeds, d_vars, d_caps, acc_vars, acc_caps, dys_f] {
    copy_all(dys_f, acc_vars);
    zero(acc_caps);
    for (int64_t i = loop->count - 1; i >= 0; --i) {
      loop->restore(i);
      copy_all(acc_vars, seeds);
      rec->replay();
      copy_all(d_vars, acc_vars);
      accumulate(d_caps, acc_caps);
    }
  };
  backend::HostEffects fx;
  fx.type = "While";
  fx.reads = dys_f;
  append_unique(fx.reads, external_reads(*vjp.rec, vjp.outputs));
  fx.writes = acc_vars;
  fx.writes.insert(fx.writes.end(), acc_caps.begin(), acc_caps.end());
  backend::record_host_node(run, std::move(fx));
  Grads out(s.init.size() + g.captures.size());
  for (std::size_t j = 0; j < fv.size(); ++j) out[fv[j]] = acc_vars[j];
  for (std::size_t c = 0; c < g.captures.size(); ++c) out[s.init.size() + c] = acc_caps[c];
  return out;
}

}  // namespace

void record_while_gradient(const std::shared_ptr<LoopState>& s, const Subgraph& body) {
  std::unordered_set<uint64_t> var_ids;
  for (const auto& v : s->vars) var_ids.insert(v.id());
  for (const auto& slice : body.slices) {
    auto g = std::make_shared<WhileGrad>(WhileGrad{s, slice, slice_captures(slice, var_ids)});
    std::vector<Tensor> inputs = s->init;
    inputs.insert(inputs.end(), g->captures.begin(), g->captures.end());
    bool tracked = false;
    for (const auto& in : inputs) tracked = tracked || (autodiff::trackable(in) && slice.tape->tracked.count(in.id()));
    if (!tracked) continue;
    push_entry(slice.tape, "While", inputs, s->outs,
               [g](const Grads& dys, const Needs&) { return while_backward(*g, dys); });
  }
}

}  // namespace kiln::graph
