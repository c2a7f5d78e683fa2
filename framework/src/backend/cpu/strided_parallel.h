#pragma once
// Private: strided_for (backend/strided.h) on the pool's threads. The first
// axis longer than 1 is cut into slices, each a strided loop of its own, so
// the inner loops keep their contiguous fast paths. Small loops, and loops
// whose slices would write the same elements, stay on the calling thread.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "backend/cpu/parallel.h"
#include "backend/strided.h"

namespace kiln::cpu {

/// Runs inner(offsets, n, strides) as strided_for does. `parallel` says the
/// caller's writes never alias across slices (false: run serially).
template <std::size_t N, class F>
void strided_for_parallel(const std::vector<int64_t>& shape, const std::array<strided::Dims, N>& st,
                          std::array<int64_t, N> offsets, bool parallel, F&& inner) {
  int64_t total = 1;
  for (int64_t v : shape) total *= v;
  std::size_t d = 0;
  while (d < shape.size() && shape[d] == 1) ++d;
  if (!parallel || d == shape.size() || total < (int64_t(1) << 16)) {
    strided::strided_for<N>(shape, st, offsets, inner);
    return;
  }
  const int64_t per_index = total / shape[d];
  parallel_for(
      shape[d],
      [&](int64_t b, int64_t e) {
        std::vector<int64_t> slice = shape;
        slice[d] = e - b;
        std::array<int64_t, N> off = offsets;
        for (std::size_t k = 0; k < N; ++k) off[k] += b * st[k][d];
        strided::strided_for<N>(slice, st, off, inner);
      },
      std::max<int64_t>(1, (int64_t(1) << 15) / per_index));
}

}  // namespace kiln::cpu
