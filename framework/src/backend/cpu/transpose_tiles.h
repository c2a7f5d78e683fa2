#pragma once
// Private: the copy of a strided view whose two innermost axes are swapped in
// the source (a transpose, Permute, attention's head split), read and written
// in 16 x 16 tiles. Element by element, each output row reads one value from
// each of `cols` source lines; a tile reuses each line it reads for 16 outputs.
// Split over the threads by tile rows.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "backend/cpu/parallel.h"

namespace kiln::cpu {

/// Whether the copy is such a transpose: the destination contiguous over its
/// last two axes and never written twice (no zero stride on a longer axis),
/// the source's unit stride on the second-to-last, and both axes long enough
/// for tiles to pay.
inline bool is_inner_transpose(const std::vector<int64_t>& shape, const std::vector<int64_t>& src_strides,
                               const std::vector<int64_t>& dst_strides) {
  const std::size_t r = shape.size();
  if (r < 2 || dst_strides[r - 1] != 1 || dst_strides[r - 2] != shape[r - 1] || src_strides[r - 2] != 1 ||
      src_strides[r - 1] == 1 || shape[r - 1] < 16 || shape[r - 2] < 16)
    return false;
  for (std::size_t k = 0; k + 2 < r; ++k)
    if (dst_strides[k] == 0 && shape[k] > 1) return false;
  return true;
}

template <class T>
void copy_inner_transpose(const T* src, int64_t src_off, const std::vector<int64_t>& ss, T* dst, int64_t dst_off,
                          const std::vector<int64_t>& ds, const std::vector<int64_t>& shape) {
  constexpr int64_t kTile = 16;
  const std::size_t r = shape.size();
  const int64_t rows = shape[r - 2], cols = shape[r - 1], col_stride = ss[r - 1];
  int64_t outer = 1;
  for (std::size_t k = 0; k + 2 < r; ++k) outer *= shape[k];
  if (outer == 0) return;
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  parallel_for(
      outer * row_tiles,
      [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          // The outer index's offsets, from its digits in the leading axes.
          int64_t so = src_off, dof = dst_off, rest = t / row_tiles;
          for (std::size_t k = r - 2; k-- > 0;) {
            const int64_t digit = rest % shape[k];
            rest /= shape[k];
            so += digit * ss[k];
            dof += digit * ds[k];
          }
          const int64_t i0 = (t % row_tiles) * kTile, i1 = std::min(rows, i0 + kTile);
          for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
            const int64_t j1 = std::min(cols, j0 + kTile);
            for (int64_t i = i0; i < i1; ++i)
              for (int64_t j = j0; j < j1; ++j) dst[dof + i * cols + j] = src[so + i + j * col_stride];
          }
        }
      },
      std::max<int64_t>(1, (int64_t(1) << 14) / (kTile * cols)));
}

}  // namespace kiln::cpu
