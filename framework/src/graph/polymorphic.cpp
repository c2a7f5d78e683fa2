// Shape-polymorphic traces: a kiln::function whose input_signature has unknown
// dimensions runs its body once, and serves each new shape by re-running the
// op calls that trace logged (core/op_log.h) into a new specialization.
#include <iostream>
#include <set>
#include <utility>

#include "autodiff/autodiff.h"
#include "core/tracing.h"
#include "graph/function_trace.h"
#include "kiln/core/error.h"

namespace kiln::graph {

bool has_unknown_dims(const std::vector<TensorSpec>& specs) {
  for (const auto& s : specs)
    for (int64_t d = 0; d < s.shape.rank(); ++d)
      if (s.shape[d] < 0) return true;
  return false;
}

std::string shape_free_key(const std::string& key, const std::vector<Tensor>& args) {
  // The tensors' parts of the key appear in argument order; each is replaced
  // by the same part without dimensions.
  std::string out = key;
  std::size_t at = 0;
  for (const auto& a : args) {
    std::string concrete, free;
    tensor_key(a.impl()->shape, a.dtype(), a.device(), concrete);
    tensor_key(a.impl()->shape, a.dtype(), a.device(), free, false);
    const std::size_t pos = out.find(concrete, at);
    if (pos == std::string::npos) continue;
    out.replace(pos, concrete.size(), free);
    at = pos + free.size();
  }
  return out;
}

namespace {

/// Moves the handles' tensors out, into `into`.
void park(std::vector<Tensor>& handles, std::vector<TensorImpl>& into) {
  into.resize(handles.size());
  for (std::size_t i = 0; i < handles.size(); ++i) into[i] = std::move(*handles[i].impl());
}

void unpark(std::vector<Tensor>& handles, std::vector<TensorImpl>& from) {
  for (std::size_t i = 0; i < handles.size(); ++i) *handles[i].impl() = std::move(from[i]);
}

/// Re-runs each logged call; the handles it made then stand for the new call's results.
/// On failure, what the entries re-run so far left behind is undone.
void rerun(const oplog::Log& log) {
  std::size_t done = 0;
  try {
    for (const auto& e : log.entries) {
      std::vector<Tensor> outs = e.rerun();
      ++done;
      if (outs.size() != e.outputs.size())
        throw TracingError("shape-polymorphic trace: '" + e.name + "' answered with " + std::to_string(outs.size()) +
                           " tensors where its trace had " + std::to_string(e.outputs.size()));
      for (std::size_t j = 0; j < outs.size(); ++j) {
        if (!outs[j].defined() || outs[j].same_as(e.outputs[j])) continue;
        if (e.fresh[j]) {
          *e.outputs[j].impl() = *outs[j].impl();
          continue;
        }
        // The trace's call handed back one of its inputs (or a variable), which
        // later calls read; at this shape it made a new tensor instead.
        const TensorImpl &was = *e.outputs[j].impl(), &now = *outs[j].impl();
        if (was.storage != now.storage || !(was.shape == now.shape))
          throw TracingError("shape-polymorphic trace: '" + e.name + "' made a new tensor at this shape where its "
                             "trace handed back an existing one");
      }
    }
  } catch (...) {
    for (std::size_t i = done; i-- > 0;)
      if (log.entries[i].undo) log.entries[i].undo();
    throw;
  }
}

}  // namespace

void FunctionCore::start_polymorphic(Trace& t, oplog::Log&& log, const std::string& shape_free_key) {
  auto p = std::make_shared<Polymorphic>();
  p->log = std::move(log);
  if (!p->log.unusable.empty()) p->log.entries.clear();  // only the reason is needed
  p->handles = t.placeholders;
  std::set<const TensorImpl*> seen;
  for (const auto& h : p->handles) seen.insert(h.impl().get());
  for (const auto& e : p->log.entries)
    for (std::size_t j = 0; j < e.outputs.size(); ++j)
      if (e.fresh[j] && seen.insert(e.outputs[j].impl().get()).second) p->handles.push_back(e.outputs[j]);
  p->active = &t;
  t.polymorphic = std::move(p);
  // Printed as the signature: one trace for every shape it admits.
  t.described.clear();
  for (const auto& spec : s_->options.input_signature) t.described.push_back(spec.to_string());
  s_->polymorphic[shape_free_key] = &t;
}

void FunctionCore::activate(Trace& t) {
  Polymorphic& p = *t.polymorphic;
  if (p.active == &t) return;
  if (p.active) park(p.handles, p.active->parked);
  unpark(p.handles, t.parked);
  p.active = &t;
}

FunctionCore::Trace* FunctionCore::specialize(Trace& base, const std::vector<Tensor>& args, const std::string& key) {
  const auto p = base.polymorphic;
  auto fall_back = [&](const std::string& why) -> Trace* {
    if (!std::exchange(p->warned, true))
      std::cerr << "WARNING: kiln::function '" << s_->options.name
                << "' traces its body again for a new shape of its input_signature: the first trace " << why
                << ", which would be frozen at the first call's sizes. Use ops on tensors for sizes (reshape with "
                   "-1, zeros_like, shape-free layers) to serve every shape from one trace."
                << std::endl;
    return nullptr;
  };
  if (!p->log.unusable.empty()) return fall_back(p->log.unusable);
  auto t = std::make_unique<Trace>();
  t->polymorphic = p;
  t->described = base.described;
  t->body_key = base.body_key;
  t->placeholders = base.placeholders;
  t->outputs = base.outputs;
  Trace* previous = p->active;
  if (previous) park(p->handles, previous->parked);
  p->active = nullptr;
  try {
    for (std::size_t i = 0; i < args.size(); ++i)
      *t->placeholders[i].impl() = *Tensor::empty(args[i].shape(), args[i].dtype(), args[i].device()).impl();
    {
      backend::RecordingScope recording(t->recording, false);
      tracing::Scope scope(&s_->options.name, false);
      rerun(p->log);
    }
    plan_trace(*t, s_->options.optimize);
  } catch (const std::exception& e) {
    if (previous) unpark(p->handles, previous->parked);
    p->active = previous;
    return fall_back(std::string("could not be re-run for it (") + e.what() + ")");
  }
  p->active = t.get();
  Trace* out = t.get();
  s_->traces.emplace(key, std::move(t));
  return out;
}

}  // namespace kiln::graph
