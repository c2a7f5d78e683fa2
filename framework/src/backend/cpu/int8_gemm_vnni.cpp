// int8 × int8 → int32 GEMM with AVX-512 VNNI, and its dequantizing form.
//
// vpdpbusd multiplies unsigned by signed bytes and adds each group of four
// products straight into an int32 lane, without an int16 stage. A is made
// unsigned by adding 128 to every byte (an xor with 0x80), which adds
// 128 · Σ_k B[k][j] to every product of column j; that sum is computed once when
// B is packed and taken off in the output pass. The result is exact for every
// int8 input, -128 included, and wraps modulo 2^32 as any int32 product does.
//
// B is packed into panels of 32 columns, each k-group of 4 as two 64-byte
// vectors (column j's four bytes in lane j); A is packed per block of rows,
// shifted and padded to whole k-groups. A tile of 8 rows × 32 columns runs over
// the whole of k in sixteen zmm accumulators, so C is written once: as int32,
// or as float32 products / (col_scale[j] · row_scale[i]), Keras's int8 Dense
// dequantization in the same rounding as its two separate ops, with the Dense's
// bias and relu after it where asked.
#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/int8_pack.h"
#include "backend/cpu/parallel.h"

namespace kiln::cpu {

// Its own namespace: a unity batch may hold the AVX2 kernel's file, whose helpers have the same names.
namespace vnni {
namespace {

constexpr int64_t kMR = 8, kNR = 32;
constexpr int64_t kMC = 128;  // rows of A packed at a time (kMC × k bytes stay in L2)

struct PackedB {
  int64_t groups = 0, panels = 0;
  std::vector<int8_t> data;  // panels × groups × 128 bytes
  std::vector<int32_t> shift;  // 128 · Σ_k B[k][j], padded to panels · 32 columns
};

PackedB pack_b(const int8_t* b, bool tb, int64_t k, int64_t n) {
  PackedB p;
  p.groups = (k + 3) / 4;
  p.panels = (n + kNR - 1) / kNR;
  p.data.assign(static_cast<std::size_t>(p.panels * p.groups * 128), 0);
  p.shift.assign(static_cast<std::size_t>(p.panels * kNR), 0);
  parallel_for_parts(p.panels, k * n < (1 << 16) ? 1 : num_threads(), [&](int, int64_t p0, int64_t p1) {
    for (int64_t pn = p0; pn < p1; ++pn) {
      const int64_t j0 = pn * kNR;
      int8_t* panel = p.data.data() + pn * p.groups * 128;
      for (int64_t g = 0; g < p.groups; ++g) {
        int8_t* dst = panel + g * 128;
        const int64_t k0 = g * 4;
        if (!tb && j0 + kNR <= n && k0 + 4 <= k) {
          int8_pack_group_rows(b + k0 * n + j0, n, dst);
          int8_pack_group_rows(b + k0 * n + j0 + 16, n, dst + 64);
          continue;
        }
        for (int64_t j = 0; j < kNR && j0 + j < n; ++j)
          for (int64_t q = 0; q < 4 && k0 + q < k; ++q)
            dst[j * 4 + q] = tb ? b[(j0 + j) * k + k0 + q] : b[(k0 + q) * n + j0 + j];
      }
      // Each column's sum, four bytes at a time: vpdpbusd with unsigned ones.
      const __m512i ones = _mm512_set1_epi8(1);
      __m512i sum0 = _mm512_setzero_si512(), sum1 = sum0;
      for (int64_t g = 0; g < p.groups; ++g) {
        sum0 = _mm512_dpbusd_epi32(sum0, ones, _mm512_loadu_si512(panel + g * 128));
        sum1 = _mm512_dpbusd_epi32(sum1, ones, _mm512_loadu_si512(panel + g * 128 + 64));
      }
      int32_t* shift = p.shift.data() + j0;
      _mm512_storeu_si512(shift, _mm512_slli_epi32(sum0, 7));
      _mm512_storeu_si512(shift + 16, _mm512_slli_epi32(sum1, 7));
    }
  });
  return p;
}

/// Rows [r0, r1) of op(A) as unsigned bytes (a + 128), each padded to lda = 4 · groups.
void pack_a_rows(const int8_t* a, bool ta, int64_t m, int64_t k, int64_t r0, int64_t r1, int64_t lda, uint8_t* out) {
  for (int64_t r = r0; r < r1; ++r) {
    uint8_t* row = out + (r - r0) * lda;
    if (!ta) {
      const int8_t* src = a + r * k;
      for (int64_t i = 0; i < k; ++i) row[i] = static_cast<uint8_t>(src[i]) ^ 0x80u;
    } else {
      for (int64_t i = 0; i < k; ++i) row[i] = static_cast<uint8_t>(a[i * m + r]) ^ 0x80u;
    }
    std::memset(row + k, 0x80, static_cast<std::size_t>(lda - k));
  }
}

/// acc += a (unsigned bytes) · b (signed bytes), four at a time. In asm, because GCC 12 keeps sixteen
/// accumulators of the intrinsic in the wrong registers: it copied each of them once per k-group and
/// spilled two, about as many register moves as multiply-adds in the loop.
inline void dpbusd(__m512i& acc, __m512i a, __m512i b) { asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b)); }

/// One tile: MR rows of packed A (from `a`, stride lda) against one panel, over all groups,
/// written at row `row` and column `col` of the output (cols ≤ 32 of them).
template <int MR>
void tile(const uint8_t* a, int64_t lda, const int8_t* panel, int64_t groups, const int32_t* shift,
          const Int8GemmOutput& out, int64_t n, int64_t row, int64_t col, int64_t cols) {
  __m512i acc[MR][2];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_si512();
  for (int64_t g = 0; g < groups; ++g) {
    const __m512i b0 = _mm512_loadu_si512(panel + g * 128);
    const __m512i b1 = _mm512_loadu_si512(panel + g * 128 + 64);
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      int32_t word;
      std::memcpy(&word, a + r * lda + g * 4, 4);
      const __m512i x = _mm512_set1_epi32(word);
      dpbusd(acc[r][0], x, b0);
      dpbusd(acc[r][1], x, b1);
    }
  }
  const __mmask16 m0 = static_cast<__mmask16>(cols >= 16 ? 0xFFFF : (1u << cols) - 1);
  const __mmask16 m1 = static_cast<__mmask16>(cols >= 32 ? 0xFFFF : cols <= 16 ? 0 : (1u << (cols - 16)) - 1);
  const __m512i s0 = _mm512_loadu_si512(shift), s1 = _mm512_loadu_si512(shift + 16);
  __m512 cs0 = _mm512_setzero_ps(), cs1 = cs0, bias0 = cs0, bias1 = cs0;
  if (out.dequantized) {
    cs0 = _mm512_maskz_loadu_ps(m0, out.col_scale + col);
    cs1 = _mm512_maskz_loadu_ps(m1, out.col_scale + col + 16);
  }
  if (out.bias) {
    bias0 = _mm512_maskz_loadu_ps(m0, out.bias + col);
    bias1 = _mm512_maskz_loadu_ps(m1, out.bias + col + 16);
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    const __m512i v0 = _mm512_sub_epi32(acc[r][0], s0), v1 = _mm512_sub_epi32(acc[r][1], s1);
    const int64_t at = (row + r) * n + col;
    if (!out.dequantized) {
      _mm512_mask_storeu_epi32(out.products + at, m0, v0);
      _mm512_mask_storeu_epi32(out.products + at + 16, m1, v1);
      continue;
    }
    // (col_scale · row_scale) first, then the division, as cast(p) / (kernel_scale · x_scale) rounds.
    const __m512 rs = _mm512_set1_ps(out.row_scale[row + r]);
    __m512 f0 = _mm512_div_ps(_mm512_cvtepi32_ps(v0), _mm512_mul_ps(cs0, rs));
    __m512 f1 = _mm512_div_ps(_mm512_cvtepi32_ps(v1), _mm512_mul_ps(cs1, rs));
    if (out.bias) f0 = _mm512_add_ps(f0, bias0), f1 = _mm512_add_ps(f1, bias1);
    if (out.relu) {
      // Zero where v <= 0; v itself where v > 0 or NaN (not-less-or-equal, unordered), as bias_add's relu.
      f0 = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(f0, _mm512_setzero_ps(), _CMP_NLE_UQ), f0);
      f1 = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(f1, _mm512_setzero_ps(), _CMP_NLE_UQ), f1);
    }
    _mm512_mask_storeu_ps(out.dequantized + at, m0, f0);
    _mm512_mask_storeu_ps(out.dequantized + at + 16, m1, f1);
  }
}

using TileFn = void (*)(const uint8_t*, int64_t, const int8_t*, int64_t, const int32_t*, const Int8GemmOutput&,
                        int64_t, int64_t, int64_t, int64_t);
constexpr TileFn kTiles[kMR + 1] = {nullptr,  tile<1>, tile<2>, tile<3>, tile<4>,
                                    tile<5>, tile<6>, tile<7>, tile<8>};

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const int8_t* a, const int8_t* b,
          const Int8GemmOutput& out) {
  const PackedB pb = pack_b(b, tb, k, n);
  const int64_t lda = pb.groups * 4;
  const int64_t row_blocks = (m + kMC - 1) / kMC;
  const double ops = 2.0 * static_cast<double>(m) * n * k;
  const int threads = ops < 2e5 ? 1 : num_threads();
  // Few rows (small batches): the threads split the panels instead, each packing the rows it needs.
  const int64_t col_blocks = row_blocks >= threads ? 1 : std::min<int64_t>(pb.panels, (threads + row_blocks - 1) / row_blocks);
  const int64_t panels_per_block = (pb.panels + col_blocks - 1) / col_blocks;
  parallel_for_parts(row_blocks * col_blocks, threads, [&](int, int64_t u0, int64_t u1) {
    std::vector<uint8_t> packed(static_cast<std::size_t>(std::min(kMC, m) * lda));
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t r0 = (u / col_blocks) * kMC, r1 = std::min(m, r0 + kMC);
      const int64_t pn0 = (u % col_blocks) * panels_per_block, pn1 = std::min(pb.panels, pn0 + panels_per_block);
      pack_a_rows(a, ta, m, k, r0, r1, lda, packed.data());
      for (int64_t pn = pn0; pn < pn1; ++pn) {
        const int8_t* panel = pb.data.data() + pn * pb.groups * 128;
        const int64_t col = pn * kNR, cols = std::min(kNR, n - col);
        for (int64_t r = r0; r < r1; r += kMR) {
          const int64_t rows = std::min(kMR, r1 - r);
          kTiles[rows](packed.data() + (r - r0) * lda, lda, panel, pb.groups, pb.shift.data() + col, out, n, r, col,
                       cols);
        }
      }
    }
  });
}

}  // namespace
}  // namespace vnni

void int8_gemm_vnni(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const int8_t* a, const int8_t* b,
                    const Int8GemmOutput& out) {
  vnni::gemm(ta, tb, m, n, k, a, b, out);
}

}  // namespace kiln::cpu

#endif
