#pragma once
// Private: makes a DYNAMIC_ARCH OpenBLAS that fell back to its generic SSE3
// kernels on a CPU it does not know use the kernels the CPU can run
// (blas_kernels.cpp says why and how).
#include <string>

namespace kiln::cpu {

/// Once per process, before the first GEMM.
void select_blas_kernels();

/// OpenBLAS's kernel set after the selection ("SkylakeX", "Haswell", ...);
/// empty for a BLAS that does not say.
std::string blas_kernels();

}  // namespace kiln::cpu
