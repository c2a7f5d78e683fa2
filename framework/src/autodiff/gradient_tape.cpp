// The tape. Each active tape keeps the ids it tracks (watched tensors and the
// outputs of ops recorded from them) and a list of entries in recording
// order, which is already a topological order. gradient() walks it backwards.
#include "kiln/autodiff/gradient_tape.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "autodiff/autodiff.h"
#include "autodiff/tape_state.h"
#include "backend/backend.h"
#include "core/op_log.h"
#include "core/placement_scope.h"
#include "core/profiler_events.h"
#include "core/tracing.h"
#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "core/tensor_impl.h"

namespace kiln {

namespace {
thread_local std::vector<TapeState*> t_tapes;
}  // namespace

const std::vector<TapeState*>& active_tapes() { return t_tapes; }

void set_recording(TapeState* s, bool on) {
  if (s->recording == on) return;
  s->recording = on;
  autodiff::active_count() += on ? 1 : -1;
}

namespace autodiff {

int& active_count() {
  thread_local int n = 0;
  return n;
}

bool any_persistent_tape() {
  for (const TapeState* s : t_tapes)
    if (s->recording && s->options.persistent) return true;
  return false;
}

bool trackable(const Tensor& t) { return t.defined() && is_floating(t.dtype()); }

void record(const char* op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs, BackwardFn backward) {
  for (TapeState* s : t_tapes) {
    if (!s->recording) continue;
    bool any = false;
    for (const auto& in : inputs)
      if (trackable(in) && s->tracked.count(in.id())) { any = true; break; }
    if (!any) continue;
    TapeEntry e{op, inputs, {}, {}, {}, backward, {}};
    if (tracing::current_function() || profiler::detail::recording()) e.layer = tracing::current_layer_path();
    for (const auto& o : outputs) {
      e.output_ids.push_back(o.id());
      e.output_shapes.push_back(o.shape());
      e.output_dtypes.push_back(o.dtype());
      if (trackable(o)) s->tracked.insert(o.id());
    }
    s->entries.push_back(std::move(e));
  }
}

void record_no_gradient(const char* op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) {
  record(op, inputs, outputs, nullptr);
}

void variable_read(const Variable& v) {
  for (TapeState* s : t_tapes) {
    if (!s->recording || !s->options.watch_accessed_variables || !v.trainable()) continue;
    if (s->watched_var_ids.insert(v.id()).second) {
      s->watched_vars.push_back(v);
      s->tracked.insert(v.id());
    }
  }
}

namespace {
thread_local std::vector<std::vector<bool>> t_paused_flags;
}
Pause::Pause() : saved_(active_count()) {
  std::vector<bool> flags;
  for (TapeState* s : t_tapes) {
    flags.push_back(s->recording);
    s->recording = false;
  }
  t_paused_flags.push_back(std::move(flags));
  active_count() = 0;
}
Pause::~Pause() {
  // Restore exactly the flags saved, so tapes paused for other reasons stay paused.
  auto flags = std::move(t_paused_flags.back());
  t_paused_flags.pop_back();
  for (std::size_t i = 0; i < t_tapes.size() && i < flags.size(); ++i) t_tapes[i]->recording = flags[i];
  active_count() = saved_;
}

}  // namespace autodiff

GradientTape::GradientTape(GradientTapeOptions o) : state_(std::make_unique<TapeState>()) {
  state_->options = o;
  t_tapes.push_back(state_.get());
  autodiff::active_count() += 1;
  // A re-run of a shape-polymorphic trace opens a tape of its own here.
  if (oplog::logging()) {
    state_->rerun = std::make_shared<std::shared_ptr<GradientTape>>();
    auto slot = state_->rerun;
    oplog::append("GradientTape", [slot, o] {
      *slot = std::make_shared<GradientTape>(o);
      return std::vector<Tensor>{};
    }, {}, std::vector<bool>{}, [slot] { slot->reset(); });
  }
}

GradientTape::~GradientTape() {
  if (state_->recording) autodiff::active_count() -= 1;
  t_tapes.erase(std::remove(t_tapes.begin(), t_tapes.end(), state_.get()), t_tapes.end());
  if (state_->rerun && oplog::logging())
    oplog::append("CloseGradientTape", [slot = state_->rerun] {
      slot->reset();
      return std::vector<Tensor>{};
    }, {}, std::vector<bool>{});
}

namespace {
/// Runs a tape call as one logged op of a shape-polymorphic trace, on the tape
/// a re-run opened in this one's place. A tape the trace did not open cannot be re-run.
template <class F, class... A>
auto run_on_rerun_tape(const char* name, const TapeState& s, F f, const A&... args) {
  if (!s.rerun) {
    oplog::outside_op(std::string("uses a GradientTape opened outside the function (") + name + ")");
    oplog::Inside inside;
    return f(static_cast<GradientTape*>(nullptr), args...);
  }
  return oplog::run_logged(name, [slot = s.rerun, f](const A&... a) { return f(slot->get(), a...); }, args...);
}
}  // namespace

void GradientTape::watch(const Tensor& t) {
  if (oplog::logging())
    return run_on_rerun_tape("watch", *state_, [this](GradientTape* tape, const Tensor& x) {
      (tape ? tape : this)->watch(x);
    }, t);
  if (!is_floating(t.dtype())) {
    std::cerr << "WARNING: The dtype of the watched tensor must be floating (e.g. float32), got " << dtype_name(t.dtype())
              << "\n";
    return;
  }
  state_->tracked.insert(t.id());
}
void GradientTape::watch(const Variable& v) {
  if (oplog::logging())
    return run_on_rerun_tape("watch", *state_, [this](GradientTape* tape, const Variable& x) {
      (tape ? tape : this)->watch(x);
    }, v);
  if (state_->watched_var_ids.insert(v.id()).second) state_->watched_vars.push_back(v);
  state_->tracked.insert(v.id());
}
void GradientTape::watch(const std::vector<Variable>& vs) {
  for (const auto& v : vs) watch(v);
}
std::vector<Variable> GradientTape::watched_variables() const { return state_->watched_vars; }
bool GradientTape::persistent() const { return state_->options.persistent; }

GradientTape::StopRecording::StopRecording(TapeState* s) : state_(s) { set_recording(s, false); }
GradientTape::StopRecording::~StopRecording() { set_recording(state_, true); }
GradientTape::StopRecording GradientTape::stop_recording() { return StopRecording(state_.get()); }

void GradientTape::reset() {
  state_->entries.clear();
  state_->tracked.clear();
  state_->watched_vars.clear();
  state_->watched_var_ids.clear();
  state_->used = false;
}

namespace {
/// Sums a gradient down to `shape` (undoing broadcasting).
Tensor unbroadcast(const Tensor& g, const Shape& shape) {
  if (g.shape() == shape) return g;
  const int64_t gr = g.rank(), r = shape.rank();
  std::vector<int> axes;
  for (int64_t i = 0; i < gr; ++i) {
    int64_t j = i - (gr - r);
    if (j < 0 || (shape.dims()[j] == 1 && g.shape().dims()[i] != 1)) axes.push_back(static_cast<int>(i));
  }
  Tensor s = axes.empty() ? g : sum(g, Axes(axes), true);
  return reshape(s, shape);
}
}  // namespace

void check_reusable(const TapeState& s) {
  if (s.used && !s.options.persistent)
    throw RuntimeError(
        "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians); "
        "create it with {.persistent = true} to call gradient() more than once");
}

void release_entries(TapeState& s) {
  s.used = true;
  if (!s.options.persistent) s.entries.clear();
}

namespace {
/// Runs one entry's rule and accumulates its input gradients into `grads`.
void backprop_entry(TapeState& s, TapeEntry& e, std::unordered_map<uint64_t, Tensor>& grads, bool release) {
  bool any = false;
  std::vector<Tensor> dys(e.output_ids.size());
  for (std::size_t k = 0; k < e.output_ids.size(); ++k) {
    auto g = grads.find(e.output_ids[k]);
    if (g != grads.end()) {
      dys[k] = g->second;
      any = true;
    }
  }
  if (!any) return;
  // The rule's helper tensors (and the zeros below) go to the op's device.
  Device device = Device::cpu();
  for (const auto& dy : dys)
    if (dy.defined()) {
      device = dy.device();
      break;
    }
  PlacementScope on_op_device(device);
  for (std::size_t k = 0; k < dys.size(); ++k)
    if (!dys[k].defined()) dys[k] = zeros(e.output_shapes[k], e.output_dtypes[k]);
  std::vector<bool> needs(e.inputs.size());
  bool need_any = false;
  for (std::size_t i = 0; i < e.inputs.size(); ++i) {
    needs[i] = autodiff::trackable(e.inputs[i]) && s.tracked.count(e.inputs[i].id());
    need_any = need_any || needs[i];
  }
  if (!need_any) return;
  if (!e.backward)
    throw LookupError(std::string("No gradient defined for operation '") + e.op +
                      "'; wrap it in stop_gradient() or give it a custom_gradient");
  std::optional<tracing::LayerScope> in_layer;
  if (!e.layer.empty()) in_layer.emplace(e.layer, tracing::LayerScope::Backward{});
  std::vector<Tensor> gin = e.backward(dys, needs);
  in_layer.reset();
  for (std::size_t i = 0; i < e.inputs.size() && i < gin.size(); ++i) {
    if (!needs[i] || !gin[i].defined()) continue;
    Tensor g = unbroadcast(gin[i], e.inputs[i].shape());
    if (g.dtype() != e.inputs[i].dtype()) g = cast(g, e.inputs[i].dtype());
    auto [pos, inserted] = grads.emplace(e.inputs[i].id(), g);
    if (!inserted) pos->second = add(pos->second, g);
  }
  // Free what this entry saved as soon as it has been used.
  if (release) e.backward = nullptr, e.inputs.clear();
}

std::vector<std::optional<Tensor>> collect(const std::unordered_map<uint64_t, Tensor>& grads,
                                           const std::vector<Source>& sources, UnconnectedGradients unconnected) {
  std::vector<std::optional<Tensor>> out;
  for (const auto& src : sources) {
    const Tensor& t = src.tensor();
    if (!is_floating(t.dtype())) {
      std::cerr << "WARNING: The dtype of the source tensor must be floating (e.g. float32) when calling "
                   "GradientTape.gradient, got "
                << dtype_name(t.dtype()) << "\n";
      out.emplace_back(std::nullopt);
      continue;
    }
    auto g = grads.find(t.id());
    if (g != grads.end()) out.emplace_back(g->second);
    else if (unconnected == UnconnectedGradients::Zero) out.emplace_back(zeros_like(t));
    else out.emplace_back(std::nullopt);
  }
  return out;
}
}  // namespace

namespace {
/// For each entry, the sources whose gradient is final once the backward pass
/// has run it: those for which it is the earliest recorded use.
std::vector<std::vector<std::size_t>> finishing_entries(const TapeState& s, const std::vector<Source>& sources) {
  std::unordered_map<uint64_t, std::vector<std::size_t>> of_id;
  for (std::size_t k = 0; k < sources.size(); ++k) of_id[sources[k].tensor().id()].push_back(k);
  std::vector<std::vector<std::size_t>> finishing(s.entries.size());
  std::unordered_set<uint64_t> seen;
  for (std::size_t i = 0; i < s.entries.size(); ++i)
    for (const auto& in : s.entries[i].inputs) {
      auto it = of_id.find(in.id());
      if (it == of_id.end() || !seen.insert(in.id()).second) continue;
      finishing[i].insert(finishing[i].end(), it->second.begin(), it->second.end());
    }
  return finishing;
}
}  // namespace

std::vector<std::optional<Tensor>> run_backward(TapeState& s, const std::vector<Seed>& seeds,
                                                const std::vector<Source>& sources, UnconnectedGradients unconnected,
                                                bool release, const GradientReadyFn& on_ready) {
  // This tape must not record its own backward pass; outer tapes still do.
  const bool was_recording = s.recording;
  set_recording(&s, false);
  std::unordered_map<uint64_t, Tensor> grads;
  for (const auto& [target, seed] : seeds) {
    if (!is_floating(target.dtype()) || !s.tracked.count(target.id())) continue;
    auto [pos, inserted] = grads.emplace(target.id(), seed);
    if (!inserted) pos->second = add(pos->second, seed);  // the same tensor twice counts twice, as in TF
  }
  try {
    const auto finishing = on_ready ? finishing_entries(s, sources) : std::vector<std::vector<std::size_t>>{};
    for (std::size_t i = s.entries.size(); i-- > 0;) {
      backprop_entry(s, s.entries[i], grads, release);
      if (!on_ready) continue;
      for (std::size_t k : finishing[i]) {
        auto g = grads.find(sources[k].tensor().id());
        if (g != grads.end() && is_floating(sources[k].tensor().dtype())) on_ready(k, g->second);
      }
    }
  } catch (...) {
    set_recording(&s, was_recording);
    throw;
  }
  auto out = collect(grads, sources, unconnected);
  set_recording(&s, was_recording);
  return out;
}

std::vector<std::optional<Tensor>> GradientTape::gradient(const Tensor& target, const std::vector<Source>& sources,
                                                          const Tensor& output_gradient,
                                                          UnconnectedGradients unconnected) {
  if (oplog::logging())
    return run_on_rerun_tape("gradient", *state_, [this](GradientTape* tape, const Tensor& t,
                                                         const std::vector<Source>& s, const Tensor& og,
                                                         UnconnectedGradients u) {
      return (tape ? tape : this)->gradient(t, s, og, u);
    }, target, sources, output_gradient, unconnected);
  TapeState& s = *state_;
  check_reusable(s);
  if (output_gradient.defined() && !(output_gradient.shape() == target.shape()))
    throw ShapeError("GradientTape.gradient: output_gradient has shape " + output_gradient.shape().to_string() +
                     " but the target has shape " + target.shape().to_string());
  s.used = true;
  auto out = run_backward(s, {{target, output_gradient.defined() ? output_gradient : ones_like(target)}}, sources,
                          unconnected, !s.options.persistent);
  release_entries(s);
  return out;
}

std::vector<std::optional<Tensor>> GradientTape::gradient(const Tensor& target, const std::vector<Variable>& vars,
                                                          const GradientReadyFn& on_ready, UnconnectedGradients u) {
  if (oplog::logging())
    return run_on_rerun_tape("gradient", *state_, [this](GradientTape* tape, const Tensor& t,
                                                         const std::vector<Variable>& v, const GradientReadyFn& f,
                                                         UnconnectedGradients un) {
      return (tape ? tape : this)->gradient(t, v, f, un);
    }, target, vars, on_ready, u);
  TapeState& s = *state_;
  check_reusable(s);
  s.used = true;
  const std::vector<Source> sources(vars.begin(), vars.end());
  auto out = run_backward(s, {{target, ones_like(target)}}, sources, u, !s.options.persistent, on_ready);
  release_entries(s);
  return out;
}

std::vector<std::optional<Tensor>> GradientTape::gradient(const std::vector<Tensor>& targets,
                                                          const std::vector<Source>& sources, UnconnectedGradients u) {
  if (oplog::logging())
    return run_on_rerun_tape("gradient", *state_, [this](GradientTape* tape, const std::vector<Tensor>& t,
                                                         const std::vector<Source>& s, UnconnectedGradients un) {
      return (tape ? tape : this)->gradient(t, s, un);
    }, targets, sources, u);
  TapeState& s = *state_;
  check_reusable(s);
  std::vector<Seed> seeds;
  for (const Tensor& t : targets) seeds.emplace_back(t, ones_like(t));
  s.used = true;
  auto out = run_backward(s, seeds, sources, u, !s.options.persistent);
  release_entries(s);
  return out;
}

}  // namespace kiln
