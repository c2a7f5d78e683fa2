#pragma once
// Private: 8-lane AVX2-sized vectors through GCC's vector extensions. With
// -march=native they compile to single ymm instructions; elsewhere GCC splits
// them, so the kernels stay portable. Wider vectors are left alone on purpose:
// emulated 512-bit vectors on AVX2 machines are much slower.
#include <cstdint>

namespace kiln::cpu::simd {

typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));

inline v8f load8(const float* p) {
  v8f v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline void store8(float* p, v8f v) { __builtin_memcpy(p, &v, sizeof v); }
inline v8i load8(const int32_t* p) {
  v8i v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline void store8(int32_t* p, v8i v) { __builtin_memcpy(p, &v, sizeof v); }
inline v8f splat(float v) { return v8f{v, v, v, v, v, v, v, v}; }
inline v8i lane_index() { return v8i{0, 1, 2, 3, 4, 5, 6, 7}; }

}  // namespace kiln::cpu::simd
