#pragma once
// Private: a tape's recorded state and the backward pass over it, shared by
// gradient() (gradient_tape.cpp) and the Jacobians (jacobian.cpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "autodiff/autodiff.h"
#include "kiln/autodiff/gradient_tape.h"

namespace kiln {

struct TapeEntry {
  const char* op;
  std::vector<Tensor> inputs;         // kept for shapes/dtypes and ids
  std::vector<uint64_t> output_ids;
  std::vector<Shape> output_shapes;
  std::vector<DType> output_dtypes;
  autodiff::BackwardFn backward;      // null means "no gradient defined"
  /// The layer whose call recorded the op, kept while tracing or profiling, so
  /// that the gradient ops belong to it too.
  std::string layer;
};

struct TapeState {
  GradientTapeOptions options;
  bool recording = true;
  bool used = false;
  std::unordered_set<uint64_t> tracked;
  std::vector<TapeEntry> entries;
  std::vector<Variable> watched_vars;
  std::unordered_set<uint64_t> watched_var_ids;
  /// In a shape-polymorphic trace: where a re-run of the trace's op log keeps
  /// the tape that stands for this one (see core/op_log.h).
  std::shared_ptr<std::shared_ptr<GradientTape>> rerun;
};

namespace autodiff {
/// Floating and defined: the tensors a tape can differentiate.
bool trackable(const Tensor& t);
}  // namespace autodiff

void set_recording(TapeState* s, bool on);
/// The tapes alive on this thread, outermost first (graph control flow moves
/// the entries a branch or loop body records into entries of its own).
const std::vector<TapeState*>& active_tapes();
/// Throws TF's error when a used non-persistent tape is asked for gradients again.
void check_reusable(const TapeState& s);
/// Marks the tape used; a non-persistent one forgets its entries.
void release_entries(TapeState& s);

/// A target and the gradient flowing into it (ones for a plain gradient).
using Seed = std::pair<Tensor, Tensor>;
/// One backward pass: the seeds' gradients with respect to `sources`, summed
/// over the seeds. `release` frees each entry's saved tensors as it is used
/// (for the last pass of a non-persistent tape).
std::vector<std::optional<Tensor>> run_backward(TapeState& s, const std::vector<Seed>& seeds,
                                                const std::vector<Source>& sources, UnconnectedGradients unconnected,
                                                bool release, const GradientReadyFn& on_ready = nullptr);

}  // namespace kiln
