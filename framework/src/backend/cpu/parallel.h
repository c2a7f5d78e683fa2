#pragma once
// Private: a tiny fork-join pool for the CPU kernels. One worker per extra core;
// the calling thread takes the first share, so a 2-core machine uses exactly
// two threads. OpenBLAS keeps its own threads for GEMM; our kernels never run
// at the same time as a GEMM, so the two do not oversubscribe the cores.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace kiln::cpu {

/// Threads used by Kiln's own kernels (KILN_NUM_THREADS, else the core count).
int num_threads();
/// Splits [0, n) into `parts` contiguous ranges and runs fn(part, begin, end) on each, in parallel.
void parallel_for_parts(int64_t n, int parts, const std::function<void(int, int64_t, int64_t)>& fn);
/// Splits [0, n) over num_threads() (serially when n < min_chunk).
inline void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn, int64_t min_chunk = 1) {
  int parts = n >= 2 * min_chunk ? num_threads() : 1;
  parallel_for_parts(n, parts, [&](int, int64_t b, int64_t e) { fn(b, e); });
}

/// A parallel reduction into `size` values: [0, n) is split into `parts`; each part
/// accumulates with fn(begin, end, buffer) into its own zeroed buffer, and
/// out[i] is the sum of the buffers, added in part order (deterministic for a
/// given thread count).
template <class T>
void parallel_sum(int64_t n, int parts, int64_t size, T* out, const std::function<void(int64_t, int64_t, T*)>& fn) {
  parts = std::max(parts, 1);
  std::vector<T> partial(static_cast<std::size_t>(size * parts), T(0));
  T* base = partial.data();
  parallel_for_parts(n, parts, [&](int part, int64_t b, int64_t e) { fn(b, e, base + part * size); });
  for (int64_t i = 0; i < size; ++i) {
    T s = 0;
    for (int part = 0; part < parts; ++part) s += base[part * size + i];
    out[i] = s;
  }
}

}  // namespace kiln::cpu
