#pragma once
// Private: averages one training step's gradients across ranks, as PyTorch
// DDP's reducer does. The variables are split into buckets in reverse order
// (the order a backward pass finishes them), each at most bucket_cap_mb (the
// first smaller), holding one dtype. The tape's ready hook copies each
// gradient, scaled by this rank's share of the global batch, into its
// bucket; a full bucket's all-reduce starts at once, while the backward pass
// goes on. Buckets start strictly in index order, so every rank issues the
// same collectives in the same order even if its pass finishes them
// differently. finish() fills what never became ready with zeros, waits, and
// returns the summed gradients. Inside a trace each step of this is a host
// node, so every replay communicates again.
#include <memory>
#include <optional>
#include <vector>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/distribute/data_parallel.h"

namespace kiln::distribute {

/// While alive, Optimizer::apply takes its gradients as already reduced
/// (fit's train step reduced them during the backward pass).
class ReducedGradientsScope {
 public:
  ReducedGradientsScope();
  ~ReducedGradientsScope();
  static bool active();

 private:
  bool saved_;
};

class GradientReducer {
 public:
  GradientReducer(const std::vector<Variable>& vars, const DataParallelOptions& options);
  /// For GradientTape::gradient: called as each variable's gradient is final.
  GradientReadyFn hook() const;
  /// The reduced gradients of all variables.
  std::vector<std::optional<Tensor>> finish(const std::vector<std::optional<Tensor>>& local) const;
  /// The reduced gradients, all at once (custom training loops: Optimizer::apply).
  std::vector<std::optional<Tensor>> reduce(const std::vector<std::optional<Tensor>>& local) const;
  /// The number of buckets (for tests and benchmarks).
  std::size_t bucket_count() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace kiln::distribute
