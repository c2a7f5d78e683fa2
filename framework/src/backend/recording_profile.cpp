// A compiled step's nodes as profiler events: each node is one op, named by its
// TensorFlow op type and attributed to the layer whose call() recorded it.
#include "backend/recording.h"
#include "core/profiler_events.h"

namespace kiln::backend {

void Recording::run_profiled(std::size_t begin, std::size_t end) {
  namespace prof = profiler::detail;
  prof::ReplayScope replay;
  for (std::size_t i = begin; i < end && i < nodes_.size(); ++i) {
    const int64_t t0 = prof::now_ns();
    try {
      nodes_[i].run();
    } catch (const Error& e) {
      rethrow_in_layer_context(nodes_[i], e);
    }
    prof::add(prof::Kind::op, nodes_[i].type, nodes_[i].layer, t0, prof::now_ns());
  }
}

}  // namespace kiln::backend
