#pragma once
// Which CPU kernels run. Every fast CPU kernel (direct convolution, the 2×2
// max-pool, fused bias/activation passes, the parallel element-wise loops)
// keeps a plain reference loop beside it. Tests run both and compare; users
// can switch to the reference loops to rule out a kernel when results look wrong.
namespace kiln {

enum class CpuKernels { fast, reference };

/// Selects the CPU kernels for every op that follows (process-wide; default fast).
void set_cpu_kernels(CpuKernels kernels);
CpuKernels cpu_kernels();

}  // namespace kiln
