// int8 × int8 → int32 GEMM for quantized layers (keras.ops.matmul on two int8
// tensors). Both operands are packed so that each output is a dot product of two
// contiguous int8 rows: the compiler turns the widening multiply-add into
// vpmovsxbw + vpmaddwd on AVX2. Rows of C are split over Kiln's pool.
#include <cstdint>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/parallel.h"

namespace kiln::cpu {

namespace {

int32_t dot_int8(const int8_t* a, const int8_t* b, int64_t k) {
  int32_t sum = 0;
  for (int64_t i = 0; i < k; ++i) sum += static_cast<int16_t>(a[i]) * static_cast<int16_t>(b[i]);
  return sum;
}

/// The rows of op(X) (rows × k) as one contiguous row-major block.
std::vector<int8_t> pack_rows(const int8_t* x, bool transposed, int64_t rows, int64_t k) {
  std::vector<int8_t> out(static_cast<std::size_t>(rows * k));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < k; ++i) out[r * k + i] = transposed ? x[i * rows + r] : x[r * k + i];
  return out;
}

}  // namespace

void int8_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const int8_t* a, const int8_t* b, int32_t* c) {
  if (m == 0 || n == 0) return;
  // A's rows are already contiguous unless A is transposed; B's columns become rows.
  std::vector<int8_t> a_rows;
  if (ta) a_rows = pack_rows(a, true, m, k);
  const int8_t* ar = ta ? a_rows.data() : a;
  std::vector<int8_t> b_rows;
  if (!tb) b_rows = pack_rows(b, true, n, k);
  const int8_t* br = tb ? b : b_rows.data();
  const double ops = 2.0 * static_cast<double>(m) * n * k;
  const int parts = ops < 2e5 ? 1 : num_threads();
  parallel_for_parts(m, parts, [&](int, int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t j = 0; j < n; ++j) c[r * n + j] = dot_int8(ar + r * k, br + j * k, k);
  });
}

}  // namespace kiln::cpu
