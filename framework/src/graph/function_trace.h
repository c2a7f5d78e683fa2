#pragma once
// Private: one trace of a kiln::function (function.cpp), and the state a
// shape-polymorphic trace shares with the specializations made from it (polymorphic.cpp).
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/recording.h"
#include "core/op_log.h"
#include "core/tensor_impl.h"
#include "graph/captured_replay.h"
#include "graph/function_gradient.h"
#include "kiln/graph/function.h"

namespace kiln::graph {

/// A trace whose input_signature has unknown dimensions: its body ran once,
/// logging its op calls, and each new shape is a specialization made by
/// re-running the log (core/op_log.h). The logged calls hold the same tensor
/// handles in every specialization, so the active specialization's tensors
/// are moved into those handles before it replays, and the others' wait in
/// their traces (`parked`).
struct Polymorphic {
  oplog::Log log;
  /// The placeholders, then the tensors each logged call made.
  std::vector<Tensor> handles;
  FunctionCore::Trace* active = nullptr;
  /// Whether a fall back to tracing the body has been warned about.
  bool warned = false;
};

struct FunctionCore::Trace {
  std::vector<Tensor> placeholders;
  backend::Recording recording;  // as traced: what a concrete function shows
  backend::Recording plan;       // after the graph passes: what replays run
  CapturedReplay captured;       // the plan's GPU work as CUDA Graphs
  std::vector<bool> bindable;    // placeholders the plan never writes
  std::vector<Tensor> outputs;
  std::vector<std::string> described;
  /// The signature key of the call whose body run made this trace.
  std::string body_key;
  /// Set on the trace of a shape-polymorphic signature and on its specializations.
  std::shared_ptr<Polymorphic> polymorphic;
  /// This specialization's tensors while another one is active.
  std::vector<TensorImpl> parked;
};

struct FunctionCore::State {
  FunctionOptions options;
  std::map<std::string, std::unique_ptr<Trace>> traces;
  /// Each shape-polymorphic trace, by its shape-free key.
  std::map<std::string, Trace*> polymorphic;
  std::vector<const Trace*> order;
  int tracing_count = 0;
  std::shared_ptr<GradientTraces> under_tape = make_gradient_traces();
};

/// A tensor's part of a signature key: dtype, dimensions (or only the rank) and device, compactly.
void tensor_key(const Shape& shape, DType dtype, Device device, std::string& key, bool with_dims = true);
/// Runs the graph passes over a trace's recording (when asked) and seals the plan replays run.
void plan_trace(FunctionCore::Trace& t, bool optimize);
/// Whether any spec has an unknown (-1) dimension.
bool has_unknown_dims(const std::vector<TensorSpec>& specs);
/// The call's signature key with its tensors' dimensions left out: one per polymorphic trace.
std::string shape_free_key(const std::string& key, const std::vector<Tensor>& args);

}  // namespace kiln::graph
