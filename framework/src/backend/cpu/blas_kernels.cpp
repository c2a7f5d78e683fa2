// OpenBLAS's kernel set. A DYNAMIC_ARCH OpenBLAS (Debian's) picks its
// kernels from the CPU's family and model numbers. A CPU newer than the
// library (Debian 12's 0.3.21 predates Sapphire Rapids), or a virtual CPU
// that reports a generic model, falls back to the Prescott kernels: SSE3
// only, about half the speed of the AVX-512 ones on the GEMMs Kiln runs
// (a character LSTM's training step took 131 ms instead of 67 ms). When that
// happens, the kernels are chosen again from the instruction sets the CPU
// reports, through OPENBLAS_CORETYPE, as a user would set it by hand. The
// same happens when it picks its AVX2 kernels (Haswell, Zen) on a CPU with
// AVX-512, as 0.3.21 does on AMD's Zen 4 and Zen 5, which later OpenBLAS
// releases run on the SkylakeX kernels (on a 2-core Zen 5, sgemm at
// 512×512×512 ran at 490 GFLOP/s with them and 255 with the AVX2 ones).
//
// The entry points are looked up at run time: another BLAS, or an OpenBLAS
// built for one CPU, lacks them, and then nothing changes. A user's own
// OPENBLAS_CORETYPE is left alone, and KILN_BLAS_CORETYPE=keep keeps
// OpenBLAS's own choice.
#include "backend/cpu/blas_kernels.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "kiln/backend/cpu_kernels.h"

namespace kiln::cpu {

namespace {

using CoreName = char* (*)();
using Hook = void (*)();

template <class F>
F lookup(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

/// The best OpenBLAS 0.3.x x86 kernel set the CPU can run, or nullptr.
const char* best_core_for_this_cpu() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  if (__builtin_cpu_supports("avx")) return "Sandybridge";
#endif
  return nullptr;
}

std::string current_core() {
  auto name = lookup<CoreName>("openblas_get_corename");
  const char* n = name ? name() : nullptr;
  return n ? n : "";
}

}  // namespace

void select_blas_kernels() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("OPENBLAS_CORETYPE")) return;
    if (const char* keep = std::getenv("KILN_BLAS_CORETYPE"); keep && std::strcmp(keep, "keep") == 0) return;
    auto quit = lookup<Hook>("gotoblas_dynamic_quit");
    auto init = lookup<Hook>("gotoblas_dynamic_init");
    if (!quit || !init) return;
    const std::string core = current_core();
    const char* best = best_core_for_this_cpu();
    if (!best) return;
    const bool avx2_on_avx512 = (core == "Haswell" || core == "Zen") && std::strcmp(best, "SkylakeX") == 0;
    if (core != "Prescott" && !avx2_on_avx512) return;
    // gotoblas_dynamic_init reads OPENBLAS_CORETYPE when it has no kernel
    // table; quit only clears the table. This runs before Kiln's first GEMM.
    ::setenv("OPENBLAS_CORETYPE", best, 0);
    quit();
    init();
  });
}

std::string blas_kernels() {
  select_blas_kernels();
  return current_core();
}

}  // namespace kiln::cpu

std::string kiln::blas_kernels() { return cpu::blas_kernels(); }
