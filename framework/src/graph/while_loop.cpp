// kiln::while_loop: eagerly a C++ loop; inside a trace one "While" node over
// a traced condition and body.
#include "graph/while_loop.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <utility>

#include "backend/backend.h"
#include "core/tensor_impl.h"
#include "graph/control_flow_internal.h"
#include "kiln/core/error.h"
#include "kiln/graph/control_flow.h"

namespace kiln::graph {

namespace {

/// History slots made up front when maximum_iterations bounds the loop; past
/// that (or without a bound) slots are added as iterations need them.
constexpr int64_t kPreallocatedSlots = 1024;

std::string spec(const Tensor& t) { return "shape " + t.shape().to_string() + " and dtype " + dtype_name(t.dtype()); }

void check_body(const std::vector<Tensor>& in, const std::vector<Tensor>& out) {
  if (in.size() != out.size())
    throw ValueError("kiln::while_loop: body_fn returned " + std::to_string(out.size()) + " tensors for " +
                     std::to_string(in.size()) + " loop variables; it must return one per loop variable");
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!out[i].defined())
      throw ValueError("kiln::while_loop: body_fn returned an undefined tensor for loop variable " + std::to_string(i));
    if (in[i].shape() == out[i].shape() && in[i].dtype() == out[i].dtype()) continue;
    throw ValueError("kiln::while_loop: loop variable " + std::to_string(i) + " enters the loop with " +
                     spec(in[i]) + ", but has " + spec(out[i]) +
                     " after one iteration; loop variables keep their shape and dtype across iterations");
  }
}

/// How many while_loop bodies this thread is tracing.
thread_local int t_body_depth = 0;
struct BodyDepth {
  BodyDepth() { ++t_body_depth; }
  ~BodyDepth() { --t_body_depth; }
  BodyDepth(const BodyDepth&) = delete;
  BodyDepth& operator=(const BodyDepth&) = delete;
};

bool below_limit(const std::optional<int64_t>& max, int64_t i) { return !max || i < *max; }

std::vector<Tensor> eager_while(const LoopCondFn& cond_fn, const LoopBodyFn& body_fn, std::vector<Tensor> vars,
                                const WhileOptions& o) {
  for (int64_t i = 0; below_limit(o.maximum_iterations, i); ++i) {
    Tensor pred = cond_fn(vars);
    check_pred(pred, "kiln::while_loop");
    if (!pred.item<bool>()) break;
    std::vector<Tensor> next = body_fn(vars);
    check_body(vars, next);
    vars = std::move(next);
  }
  return vars;
}

bool shares(const Tensor& a, const Tensor& b) { return a.impl()->storage == b.impl()->storage; }

/// Which body results must go through a staging buffer: those that are
/// another loop variable's buffer, which the copy back may already have overwritten.
void plan_staging(LoopState& s) {
  s.staged.assign(s.vars.size(), false);
  for (std::size_t k = 0; k < s.vars.size(); ++k)
    for (std::size_t j = 0; j < s.vars.size(); ++j)
      if (j != k && shares(s.body_out[k], s.vars[j])) s.staged[k] = true;
  std::vector<Tensor> like;
  for (std::size_t k = 0; k < s.vars.size(); ++k)
    if (s.staged[k]) like.push_back(s.vars[k]);
  s.staging = fresh_like(like);
}

void step(LoopState& s) {
  std::vector<Tensor> src = s.body_out;
  for (std::size_t k = 0, j = 0; k < src.size(); ++k)
    if (s.staged[k]) {
      copy_all({s.body_out[k]}, {s.staging[j]});
      src[k] = s.staging[j++];
    }
  copy_all(src, s.vars);
}

void save(LoopState& s, int64_t i) {
  if (static_cast<int64_t>(s.history.size()) <= i) s.history.push_back(fresh_like(s.saved));
  copy_all(s.saved, s.history[static_cast<std::size_t>(i)]);
}

/// Makes the outer tapes track the loop variables' buffers, so that the
/// body's ops on them are recorded (and then moved into the body's slices).
void track_vars(const std::vector<Tensor>& vars) {
  for (TapeState* t : active_tapes())
    if (t->recording)
      for (const auto& v : vars)
        if (autodiff::trackable(v)) t->tracked.insert(v.id());
}

/// Whether any tape can want the loop's gradient: one tracks a loop variable
/// passed in, or the body reads a tensor a tape tracks.
bool body_differentiable(const Subgraph& body, const std::vector<Tensor>& init, const std::vector<Tensor>& vars) {
  std::unordered_set<uint64_t> var_ids;
  for (const auto& v : vars) var_ids.insert(v.id());
  for (const auto& slice : body.slices) {
    for (const auto& v : init)
      if (autodiff::trackable(v) && slice.tape->tracked.count(v.id())) return true;
    if (!slice_captures(slice, var_ids).empty()) return true;
  }
  return false;
}

std::vector<Tensor> traced_while(const LoopCondFn& cond_fn, const LoopBodyFn& body_fn, std::vector<Tensor> init,
                                 const WhileOptions& o) {
  auto s = std::make_shared<LoopState>();
  s->init = init;
  s->vars = fresh_like(init);
  s->maximum_iterations = o.maximum_iterations;
  track_vars(s->vars);
  Subgraph cg = trace_subgraph([&] { return std::vector<Tensor>{cond_fn(s->vars)}; });
  check_pred(cg.outputs.at(0), "kiln::while_loop");
  Subgraph bg = [&] {
    BodyDepth inside;
    return trace_subgraph([&] { return body_fn(s->vars); });
  }();
  check_body(s->vars, bg.outputs);
  s->cond_rec = cg.rec;
  s->pred = cg.outputs[0];
  s->body_rec = bg.rec;
  s->body_out = bg.outputs;
  s->outs = fresh_like(init);
  plan_staging(*s);
  if (body_differentiable(bg, init, s->vars)) {
    // An inner loop's saved iterations and count are not part of what the
    // outer loop saves per iteration, so its gradient would mix iterations up.
    if (t_body_depth > 0)
      throw RuntimeError(
          "kiln::while_loop: a gradient through a while_loop nested in another while_loop's body is not "
          "supported in a traced kiln::function; run it eagerly (kiln::config::run_functions_eagerly(true))");
    s->keep_history = true;
    s->saved = s->vars;
    for (const auto& b : written_buffers(bg))
      if (std::none_of(s->saved.begin(), s->saved.end(), [&](const Tensor& v) { return shares(v, b); }))
        s->saved.push_back(b);
    const int64_t slots = std::min(o.maximum_iterations.value_or(0), kPreallocatedSlots);
    for (int64_t i = 0; i < slots; ++i) s->history.push_back(fresh_like(s->saved));
  }
  backend::HostEffects fx;
  fx.type = "While";
  fx.reads = init;
  append_unique(fx.reads, external_reads(*cg.rec));
  append_unique(fx.reads, external_reads(*bg.rec, bg.outputs));
  fx.writes = s->outs;
  // For readers of the graph: the condition, the body, the buffers both read, and the values passed in.
  fx.branches = {{cg.rec, {s->pred}}, {bg.rec, bg.outputs}, {nullptr, s->vars}, {nullptr, init}};
  if (o.maximum_iterations) {
    backend::RecordingPause unrecorded;
    fx.branches.push_back({nullptr, {Tensor(*o.maximum_iterations)}});
  }
  backend::record_host_node([s] { s->run(); }, std::move(fx));
  if (s->keep_history) record_while_gradient(s, bg);
  return s->outs;
}

}  // namespace

void LoopState::run() {
  copy_all(init, vars);
  count = 0;
  while (below_limit(maximum_iterations, count)) {
    cond_rec->replay();
    if (!read_pred(pred)) break;
    body_rec->replay();
    if (keep_history) save(*this, count);
    step(*this);
    ++count;
  }
  copy_all(vars, outs);
}

void LoopState::restore(int64_t i) const { copy_all(history.at(static_cast<std::size_t>(i)), saved); }

}  // namespace kiln::graph

namespace kiln {

std::vector<Tensor> while_loop(const graph::LoopCondFn& cond_fn, const graph::LoopBodyFn& body_fn,
                               std::vector<Tensor> loop_vars, WhileOptions options) {
  if (loop_vars.empty()) throw ValueError("kiln::while_loop: loop_vars must not be empty");
  for (std::size_t i = 0; i < loop_vars.size(); ++i)
    if (!loop_vars[i].defined())
      throw ValueError("kiln::while_loop: loop variable " + std::to_string(i) + " is an undefined tensor");
  if (backend::active_recording()) return graph::traced_while(cond_fn, body_fn, std::move(loop_vars), options);
  return graph::eager_while(cond_fn, body_fn, std::move(loop_vars), options);
}

}  // namespace kiln
