#pragma once
// The packed order of an int8 GEMM's B operand shared by its AVX2 and AVX-512
// kernels: within a k-group of four rows, each column's four bytes together, so
// that one 32-bit lane holds what vpmaddubsw/vpmaddwd or vpdpbusd sums.
#if defined(__AVX2__)
#include <immintrin.h>

#include <cstdint>

namespace kiln::cpu {

/// Four rows of B (row stride n), 16 columns, into 64 bytes: out[j · 4 + q] = B[q][j].
inline void int8_pack_group_rows(const int8_t* b, int64_t n, int8_t* out) {
  const auto row = [&](int q) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + q * n)); };
  const __m128i r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
  const __m128i lo01 = _mm_unpacklo_epi8(r0, r1), hi01 = _mm_unpackhi_epi8(r0, r1);
  const __m128i lo23 = _mm_unpacklo_epi8(r2, r3), hi23 = _mm_unpackhi_epi8(r2, r3);
  __m128i* dst = reinterpret_cast<__m128i*>(out);
  _mm_storeu_si128(dst, _mm_unpacklo_epi16(lo01, lo23));
  _mm_storeu_si128(dst + 1, _mm_unpackhi_epi16(lo01, lo23));
  _mm_storeu_si128(dst + 2, _mm_unpacklo_epi16(hi01, hi23));
  _mm_storeu_si128(dst + 3, _mm_unpackhi_epi16(hi01, hi23));
}

}  // namespace kiln::cpu
#endif
