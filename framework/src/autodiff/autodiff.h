#pragma once
// Private: how ops record their gradient rules on the active tapes.
// The pattern, used by every op:
//   Tensor y = ...forward...;
//   if (autodiff::active())
//     autodiff::record("Exp", {x}, {y}, [y](const Grads& dy, const Needs&) { return Grads{dy[0] * y}; });
// Rules are written with differentiable ops, so an outer tape records them
// too (higher-order gradients). The engine sums each gradient down to its
// input's shape, so rules need not undo broadcasting.
#include <functional>
#include <vector>

#include "kiln/core/tensor.h"
#include "kiln/autodiff/variable.h"

namespace kiln::autodiff {

using Grads = std::vector<Tensor>;
using Needs = std::vector<bool>;
/// dys: one upstream gradient per output. Returns one gradient per input
/// (undefined Tensor = none). needs[i] says whether input i wants one.
using BackwardFn = std::function<Grads(const Grads& dys, const Needs& needs)>;

/// Number of recording tapes on this thread; 0 means ops skip recording.
int& active_count();
inline bool active() { return active_count() > 0; }

/// Whether any recording tape on this thread is persistent.
bool any_persistent_tape();
/// How many tapes record on this thread now.
inline int recording_tapes() { return active_count(); }

/// Records an op on every active tape that tracks one of its floating inputs.
void record(const char* op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
            BackwardFn backward);
/// Records an op whose gradient is undefined: using it raises LookupError naming the op.
void record_no_gradient(const char* op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs);
/// Called when a variable is read (for automatic watching).
void variable_read(const Variable& v);

/// Suspends all recording on this thread while alive (used by custom_gradient).
class Pause {
 public:
  Pause();
  ~Pause();
  Pause(const Pause&) = delete;

 private:
  int saved_;
};

}  // namespace kiln::autodiff
