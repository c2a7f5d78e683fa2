#pragma once
// Which CPU kernels run. Every fast CPU kernel (direct convolution, the 2×2
// max-pool, fused bias/activation passes, the parallel element-wise loops)
// keeps a plain reference loop beside it. Tests run both and compare; users
// can switch to the reference loops to rule out a kernel when results look wrong.
#include <string>

namespace kiln {

/// The CPU kernel set: the fast ones (default) or the plain reference ones.
enum class CpuKernels { fast, reference };

/// Selects the CPU kernels for every op that follows (process-wide; default fast).
void set_cpu_kernels(CpuKernels kernels);
CpuKernels cpu_kernels();  ///< The current CPU kernel set.

/// The kernel set of the BLAS under the CPU's matmuls and convolutions, by
/// OpenBLAS's name ("SkylakeX", "Haswell", ...); empty for a BLAS that does
/// not say. A generic fallback on a CPU OpenBLAS does not know is replaced by
/// the best set the CPU supports (OPENBLAS_CORETYPE, when set, wins).
std::string blas_kernels();

}  // namespace kiln
