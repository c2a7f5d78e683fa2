#pragma once
// Private: a traced while_loop's state, shared by its "While" node and the
// node its gradient builds.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "backend/recording.h"
#include "graph/subgraph.h"

namespace kiln::graph {

struct LoopState {
  std::vector<Tensor> init;  // the loop variables passed in, read when a run starts
  std::vector<Tensor> vars;  // the buffers the condition and the body read
  std::shared_ptr<backend::Recording> cond_rec, body_rec;
  Tensor pred;                    // the condition's result
  std::vector<Tensor> body_out;   // the body's results, copied into `vars` after each iteration
  std::vector<bool> staged;       // body results that alias another loop variable's buffer
  std::vector<Tensor> staging;    // where those go first
  std::vector<Tensor> outs;       // the loop's results
  std::optional<int64_t> maximum_iterations;
  int64_t count = 0;              // iterations the last run did
  /// For gradients: the buffers each iteration's gradient reads (the loop
  /// variables and the body's own buffers), saved after each iteration's body.
  bool keep_history = false;
  std::vector<Tensor> saved;
  std::vector<std::vector<Tensor>> history;

  /// One full run of the loop, as a replay does it.
  void run();
  /// Puts iteration i's saved buffers back.
  void restore(int64_t i) const;
};

/// Registers the loop's gradient on each tape its body recorded on.
void record_while_gradient(const std::shared_ptr<LoopState>& s, const Subgraph& body);

}  // namespace kiln::graph
