#pragma once
// Private: Kiln's CPU kernels run with denormal (subnormal) floats flushed to
// zero, as TensorFlow's and XLA's CPU kernels do. Arithmetic on denormals is
// tens of times slower on x86, and they arise on their own in training: an
// optimizer slot of a unit whose gradient is zero decays geometrically into
// the denormal range and then slows every step. KILN_FLUSH_DENORMALS=0 keeps them.
#include <cstdint>

namespace kiln::cpu {

/// While alive, the calling thread flushes denormal inputs and results to
/// zero; its own mode comes back afterwards. Each CPU kernel opens one, so
/// the caller's code outside Kiln's kernels keeps IEEE behaviour.
class FlushDenormals {
 public:
  FlushDenormals();
  ~FlushDenormals();
  FlushDenormals(const FlushDenormals&) = delete;
  FlushDenormals& operator=(const FlushDenormals&) = delete;

 private:
  uint64_t saved_ = 0;
  bool changed_ = false;
};

/// Sets the mode for good on the calling thread: for the pool's workers, which run only kernels.
void flush_denormals_on_this_thread();

}  // namespace kiln::cpu
