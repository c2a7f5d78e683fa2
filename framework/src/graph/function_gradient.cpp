// A kiln::function called under a recording GradientTape. Its body is traced
// once more for the signature, with a tape of its own: the graph holds the
// forward ops, a barrier, then the ops of the gradient for upstream gradients
// that enter as extra placeholders. A call replays the forward part only, and
// the outer tape gets one op for the call, whose gradient replays the rest on
// the values the forward part left in the plan's buffers. The body runs once
// per signature, as TensorFlow's Python body does.
//
// It runs eagerly instead (as before this existed) where replaying could give
// other gradients than the ops would: under several recording tapes (higher
// order: the replayed gradient is not itself differentiable), under a
// persistent tape (its gradient may be asked for twice, and the plan's buffers
// hold one call's values), when the body writes variables or runs opaque host
// code, when the trace fails, and while an earlier call's gradient is still pending.
#include "graph/function_gradient.h"

#include <map>

#include "autodiff/autodiff.h"
#include "backend/recording.h"
#include "core/tensor_impl.h"
#include "core/tracing.h"
#include "graph/passes.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln::graph {

namespace {

constexpr const char* kBarrier = "GradientBarrier";

struct GradientTrace {
  bool usable = false;                 // false: calls run eagerly
  std::vector<Tensor> placeholders;    // the arguments
  std::vector<int> sources;            // argument indices differentiated (floating, defined)
  std::vector<Variable> variables;     // trainable variables the body read, also differentiated
  std::vector<Tensor> outputs;         // the body's results
  std::vector<Tensor> upstream;        // per output: its upstream gradient's placeholder (undefined if none)
  std::vector<Tensor> gradients;       // per source, then per variable (undefined if unconnected)
  backend::Recording plan;
  std::size_t barrier = 0;             // plan nodes [0, barrier) compute the outputs
  std::weak_ptr<int> pending;          // held by the tape op of a call whose gradient has not run
};

bool differentiable(const Tensor& t) { return t.defined() && is_floating(t.dtype()); }

std::unique_ptr<GradientTrace> trace(const FunctionOptions& options, bool first, const std::vector<Tensor>& args,
                                     const FunctionCore::Body& body) {
  auto t = std::make_unique<GradientTrace>();
  for (const auto& a : args) t->placeholders.push_back(a.defined() ? a.clone() : a);
  backend::Recording rec;
  {
    backend::RecordingScope recording(rec, false);
    tracing::Scope scope(&options.name, first);
    GradientTape tape;
    std::vector<Source> sources;
    for (std::size_t i = 0; i < args.size(); ++i)
      if (differentiable(t->placeholders[i])) {
        tape.watch(t->placeholders[i]);
        sources.emplace_back(t->placeholders[i]);
        t->sources.push_back(static_cast<int>(i));
      }
    t->outputs = body(t->placeholders);
    t->variables = tape.watched_variables();
    for (const auto& v : t->variables) sources.emplace_back(v);
    backend::record_host_node([] {}, {.type = kBarrier, .opaque = false});
    // d/dx of sum_i <y_i, dy_i> is the sum of the outputs' vector-Jacobian products.
    Tensor total;
    for (const auto& y : t->outputs) {
      if (!differentiable(y)) {
        t->upstream.emplace_back();
        continue;
      }
      Tensor dy = Tensor::empty(y.shape(), y.dtype(), y.device());
      t->upstream.push_back(dy);
      Tensor term = sum(y * dy);
      total = total.defined() ? total + term : term;
    }
    if (!total.defined() || sources.empty()) return t;
    for (auto& g : tape.gradient(total, sources)) t->gradients.push_back(g ? *g : Tensor());
  }
  for (const auto& n : rec.nodes())
    if (n.host && n.opaque) return t;
  if (rec.has_in_place_writes()) return t;
  std::vector<Tensor> kept = t->outputs, inputs = t->placeholders;
  kept.insert(kept.end(), t->gradients.begin(), t->gradients.end());
  inputs.insert(inputs.end(), t->upstream.begin(), t->upstream.end());
  t->plan = optimize(rec, kept, inputs, false);
  t->plan.seal();
  const auto& nodes = t->plan.nodes();
  for (t->barrier = 0; t->barrier < nodes.size() && nodes[t->barrier].type != kBarrier; ++t->barrier) {
  }
  t->usable = t->barrier < nodes.size();
  return t;
}

/// Whether exactly one tape records now, and it is not persistent.
bool one_plain_tape() { return autodiff::recording_tapes() == 1 && !autodiff::any_persistent_tape(); }

}  // namespace

struct GradientTraces {
  std::map<std::string, std::shared_ptr<GradientTrace>> by_key;
};

std::shared_ptr<GradientTraces> make_gradient_traces() { return std::make_shared<GradientTraces>(); }

std::optional<std::vector<Tensor>> differentiable_call(GradientTraces& traces, const FunctionOptions& options,
                                                       int& tracing_count, const std::vector<Tensor>& args,
                                                       const std::string& key, const FunctionCore::Body& body) {
  if (!one_plain_tape()) return std::nullopt;
  auto& slot = traces.by_key[key];
  if (!slot) {
    const bool first = tracing_count == 0;
    ++tracing_count;
    try {
      slot = trace(options, first, args, body);
    } catch (const std::exception&) {
      // What the trace cannot take (a higher-order gradient through control
      // flow, a value read) runs eagerly, where it either works or fails again.
      slot = std::make_shared<GradientTrace>();
    }
    if (!slot->usable) --tracing_count;  // no graph calls will replay: not counted as one
  }
  const std::shared_ptr<GradientTrace> t = slot;
  if (!t->usable || !t->pending.expired()) return std::nullopt;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].defined()) backend::backend_for(args[i].device()).copy_from(args[i], t->placeholders[i]);
  t->plan.replay(0, t->barrier);
  std::vector<Tensor> outputs;
  for (const auto& o : t->outputs) outputs.push_back(o.defined() ? o.clone() : o);

  // One op on the outer tape: the differentiated arguments and the variables' values in, the outputs out.
  std::vector<Tensor> inputs;
  for (int i : t->sources) inputs.push_back(args[static_cast<std::size_t>(i)]);
  for (const auto& v : t->variables) inputs.push_back(v.value());
  auto token = std::make_shared<int>(0);
  t->pending = token;
  autodiff::record(options.name.c_str(), inputs, outputs,
                   [t, token](const autodiff::Grads& dys, const autodiff::Needs&) {
                     for (std::size_t i = 0; i < t->upstream.size(); ++i) {
                       Tensor& dy = t->upstream[i];
                       if (!dy.defined()) continue;
                       auto& be = backend::backend_for(dy.device());
                       if (i < dys.size() && dys[i].defined()) be.copy_from(dys[i], dy);
                       else be.fill(dy, 0.0);
                     }
                     t->plan.replay(t->barrier + 1, t->plan.size());
                     autodiff::Grads out;
                     for (const auto& g : t->gradients) out.push_back(g.defined() ? g.clone() : Tensor());
                     return out;
                   });
  return outputs;
}

}  // namespace kiln::graph
