#pragma once
// Private: bulk conversions between float32 and the 16-bit float types, with
// F16C's vcvtps2ph/vcvtph2ps where the compiler targets it, and bfloat16's
// round-to-nearest-even in integer lanes, which GCC vectorizes.
#include <cstdint>
#include <cstring>

#include "kiln/core/half.h"

#if defined(__F16C__)
#include <immintrin.h>
#endif

namespace kiln::cpu {

inline void convert_floats(const float* s, float16_t* d, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#endif
  for (; i < n; ++i) d[i] = float16_t(s[i]);
}

inline void convert_floats(const float16_t* s, float* d, int64_t n) {
  int64_t i = 0;
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i))));
#endif
  for (; i < n; ++i) d[i] = static_cast<float>(s[i]);
}

inline void convert_floats(const float* s, bfloat16_t* d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t x;
    std::memcpy(&x, s + i, 4);
    const bool nan = (x & 0x7fffffffu) > 0x7f800000u;
    const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    d[i].bits = static_cast<uint16_t>(nan ? ((x >> 16) | 0x40u) : rounded);
  }
}

inline void convert_floats(const bfloat16_t* s, float* d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t x = static_cast<uint32_t>(s[i].bits) << 16;
    std::memcpy(d + i, &x, 4);
  }
}

}  // namespace kiln::cpu
