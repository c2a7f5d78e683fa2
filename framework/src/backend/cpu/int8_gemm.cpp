// int8 × int8 → int32 GEMM for quantized layers (keras.ops.matmul on two int8
// tensors). A build for AVX-512 VNNI takes int8_gemm_vnni.cpp's kernel; this
// file's is for AVX2 (with AVX-VNNI's vpdpbusd where the build has it).
//
// On AVX2 without VNNI the fastest exact multiply-add of bytes is vpmaddubsw,
// which multiplies unsigned by signed bytes and adds pairs into saturating int16.
// The sign trick makes it exact for signed operands: a·b = (a·sign(b))·|b|, with
// |b| ≤ 128 unsigned and a·sign(b) signed. A pair then sums to at most
// 2·128·127 < 2^15, so nothing saturates, provided a is never -128 (its negation
// would wrap). Keras's abs-max quantizer writes [-127, 127], so real quantized
// activations always take this path; an A holding -128 takes the plain widening
// loop, which is exact for every input.
//
// B is packed into panels of 16 columns, each k-group of 4 as two 32-byte
// vectors, once as |B| and once as B (for its signs); A is packed into rows
// padded to a multiple of 4. A 4×16 register tile accumulates in int32.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/int8_pack.h"
#include "backend/cpu/parallel.h"

namespace kiln::cpu {

namespace {

int8_t at(const int8_t* x, bool transposed, int64_t rows, int64_t cols, int64_t r, int64_t c) {
  return transposed ? x[c * rows + r] : x[r * cols + c];
}

void widening_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const int8_t* a, const int8_t* b,
                   int32_t* c) {
  const double ops = 2.0 * static_cast<double>(m) * n * k;
  parallel_for_parts(m, ops < 2e5 ? 1 : num_threads(), [&](int, int64_t r0, int64_t r1) {
    std::vector<int32_t> row(static_cast<std::size_t>(n));
    for (int64_t r = r0; r < r1; ++r) {
      std::fill(row.begin(), row.end(), 0);
      for (int64_t i = 0; i < k; ++i) {
        const int32_t x = at(a, ta, m, k, r, i);
        if (x == 0) continue;
        for (int64_t j = 0; j < n; ++j) row[j] += x * at(b, tb, k, n, i, j);
      }
      std::copy(row.begin(), row.end(), c + r * n);
    }
  });
}

#if defined(__AVX2__)

constexpr int64_t kMR = 4, kNR = 16;
constexpr int64_t kKcGroups = 128;  // k block of 512

struct PackedB {
  int64_t groups = 0, panels = 0;
  std::vector<int8_t> magnitude, sign;  // panels × groups × 64 bytes each
};

PackedB pack_b(const int8_t* b, bool tb, int64_t k, int64_t n) {
  PackedB p;
  p.groups = (k + 3) / 4;
  p.panels = (n + kNR - 1) / kNR;
  const std::size_t size = static_cast<std::size_t>(p.panels * p.groups * 64);
  p.magnitude.resize(size);
  p.sign.assign(size, 0);
  // Panels are independent; |B| is written beside each (as unsigned bytes, -128 becomes 0x80, i.e. 128).
  parallel_for_parts(p.panels, k * n < (1 << 16) ? 1 : num_threads(), [&](int, int64_t p0, int64_t p1) {
    for (int64_t pn = p0; pn < p1; ++pn) {
      for (int64_t g = 0; g < p.groups; ++g) {
        int8_t* sgn = p.sign.data() + (pn * p.groups + g) * 64;
        const int64_t j0 = pn * kNR, k0 = g * 4;
        if (!tb && j0 + kNR <= n && k0 + 4 <= k) {
          int8_pack_group_rows(b + k0 * n + j0, n, sgn);
          continue;
        }
        for (int64_t j = 0; j < kNR && j0 + j < n; ++j)
          for (int64_t q = 0; q < 4 && k0 + q < k; ++q) sgn[j * 4 + q] = at(b, tb, k, n, k0 + q, j0 + j);
      }
      for (int64_t i = pn * p.groups * 64; i < (pn + 1) * p.groups * 64; i += 32)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p.magnitude.data() + i),
                            _mm256_abs_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.sign.data() + i))));
    }
  });
  return p;
}

/// Rows of op(A), each padded with zeros to 4·groups bytes; A itself when it is laid out so already.
struct PackedA {
  std::vector<int8_t> storage;
  const int8_t* rows = nullptr;
  bool has_min = false;  ///< some value is -128
};

PackedA pack_a(const int8_t* a, bool ta, int64_t m, int64_t k, int64_t groups) {
  const int64_t lda = groups * 4;
  PackedA p;
  if (!ta && k == lda) {
    p.rows = a;
  } else {
    p.storage.assign(static_cast<std::size_t>(m * lda), 0);
    for (int64_t r = 0; r < m; ++r) {
      if (!ta) std::memcpy(p.storage.data() + r * lda, a + r * k, static_cast<std::size_t>(k));
      else
        for (int64_t i = 0; i < k; ++i) p.storage[r * lda + i] = a[i * m + r];
    }
    p.rows = p.storage.data();
  }
  const __m256i min = _mm256_set1_epi8(-128);
  __m256i seen = _mm256_setzero_si256();
  const int64_t size = m * lda;
  int64_t i = 0;
  for (; i + 32 <= size; i += 32)
    seen = _mm256_or_si256(seen, _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.rows + i)), min));
  p.has_min = !_mm256_testz_si256(seen, seen);
  for (; i < size; ++i) p.has_min |= p.rows[i] == -128;
  return p;
}

/// acc += Σ_q x_q·w_q over the four bytes of each 32-bit lane (see the sign trick above). With VNNI,
/// vpdpbusd does the unsigned-by-signed products and their sum into int32 in one instruction, with no
/// int16 stage (so no saturation to avoid); without it, vpmaddubsw and vpmaddwd do it in two.
inline __m256i multiply_add(__m256i acc, __m256i x, __m256i magnitude, __m256i sign, __m256i ones) {
#if defined(__AVXVNNI__)
  (void)ones;
  return _mm256_dpbusd_avx_epi32(acc, magnitude, _mm256_sign_epi8(x, sign));
#else
  return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(magnitude, _mm256_sign_epi8(x, sign)), ones));
#endif
}

inline __m256i broadcast_word(const int8_t* p) {
  int32_t word;
  std::memcpy(&word, p, 4);
  return _mm256_set1_epi32(word);
}

struct TileShape {
  int64_t groups;  ///< k-groups of 4 in this block
  int64_t lda;     ///< row stride of packed A
  int64_t rows, cols;
  bool accumulate;  ///< add to C (a later k block) instead of overwriting it
};

/// C[rows × cols] (row stride ldc) of one tile over one k block: rows ≤ 4,
/// cols ≤ 16. The eight accumulators are named so that they stay in registers.
void tile(const int8_t* a, const int8_t* mag, const int8_t* sgn, const TileShape& t, int32_t* c, int64_t ldc) {
  const int64_t groups = t.groups, lda = t.lda, rows = t.rows, cols = t.cols;
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
  const int8_t* a0 = a;
  const int8_t* a1 = a + std::min<int64_t>(1, rows - 1) * lda;
  const int8_t* a2 = a + std::min<int64_t>(2, rows - 1) * lda;
  const int8_t* a3 = a + std::min<int64_t>(3, rows - 1) * lda;
  for (int64_t g = 0; g < groups; ++g) {
    const __m256i m0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mag + g * 64));
    const __m256i m1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(mag + g * 64 + 32));
    const __m256i s0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sgn + g * 64));
    const __m256i s1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sgn + g * 64 + 32));
    __m256i x = broadcast_word(a0 + g * 4);
    c00 = multiply_add(c00, x, m0, s0, ones);
    c01 = multiply_add(c01, x, m1, s1, ones);
    x = broadcast_word(a1 + g * 4);
    c10 = multiply_add(c10, x, m0, s0, ones);
    c11 = multiply_add(c11, x, m1, s1, ones);
    x = broadcast_word(a2 + g * 4);
    c20 = multiply_add(c20, x, m0, s0, ones);
    c21 = multiply_add(c21, x, m1, s1, ones);
    x = broadcast_word(a3 + g * 4);
    c30 = multiply_add(c30, x, m0, s0, ones);
    c31 = multiply_add(c31, x, m1, s1, ones);
  }
  const __m256i acc[kMR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}};
  alignas(32) int32_t out[kNR];
  for (int64_t r = 0; r < rows; ++r) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(out), acc[r][0]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(out + 8), acc[r][1]);
    int32_t* dst = c + r * ldc;
    for (int64_t j = 0; j < cols; ++j) dst[j] = t.accumulate ? dst[j] + out[j] : out[j];
  }
}

#endif

}  // namespace

void int8_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const int8_t* a, const int8_t* b, int32_t* c) {
  if (m == 0 || n == 0) return;
#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
  int8_gemm_vnni(ta, tb, m, n, k, a, b, {.products = c});
  return;
#endif
#if defined(__AVX2__)
  const PackedA pa = pack_a(a, ta, m, k, (k + 3) / 4);
  if (!pa.has_min) {
    const PackedB pb = pack_b(b, tb, k, n);
    const int64_t row_tiles = (m + kMR - 1) / kMR;
    const double ops = 2.0 * static_cast<double>(m) * n * k;
    // Each part takes whole row tiles. Blocks of k keep one panel block of B and
    // the A tiles that stream past it within L1.
    parallel_for_parts(row_tiles, ops < 2e5 ? 1 : num_threads(), [&](int, int64_t t0, int64_t t1) {
      for (int64_t g0 = 0; g0 < pb.groups; g0 += kKcGroups)
        for (int64_t pn = 0; pn < pb.panels; ++pn) {
          const int64_t offset = (pn * pb.groups + g0) * 64;
          TileShape shape{std::min(kKcGroups, pb.groups - g0), pb.groups * 4, 0, std::min(kNR, n - pn * kNR), g0 > 0};
          for (int64_t t = t0; t < t1; ++t) {
            shape.rows = std::min(kMR, m - t * kMR);
            tile(pa.rows + t * kMR * shape.lda + g0 * 4, pb.magnitude.data() + offset, pb.sign.data() + offset,
                 shape, c + t * kMR * n + pn * kNR, n);
          }
        }
    });
    return;
  }
#endif
  widening_gemm(ta, tb, m, n, k, a, b, c);
}

}  // namespace kiln::cpu
