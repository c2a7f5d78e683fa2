#pragma once
// Private: 8-lane AVX2-sized vectors through GCC's vector extensions. With
// -march=native they compile to single ymm instructions; elsewhere GCC splits
// them, so the kernels stay portable. The widest type, `wide`, is 16 lanes
// only where the compiler targets AVX-512: emulated 512-bit vectors on AVX2
// machines are much slower than 8-lane ones.
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

typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));

/// Lanes of a float vector type, and its int32 companion (what comparisons give).
template <class V>
constexpr int lanes = static_cast<int>(sizeof(V) / sizeof(float));
template <class V>
struct int_of;
template <>
struct int_of<v8f> {
  using type = v8i;
};
template <>
struct int_of<v16f> {
  using type = v16i;
};
template <class V>
using int_vector = typename int_of<V>::type;

template <class V>
inline V load(const float* p) {
  V v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
template <class V>
inline void store(float* p, V v) {
  __builtin_memcpy(p, &v, sizeof v);
}
template <class V>
inline void store(int32_t* p, int_vector<V> v) {
  __builtin_memcpy(p, &v, sizeof v);
}
template <class V>
inline int_vector<V> lane_indices() {
  int_vector<V> v;
  for (int l = 0; l < lanes<V>; ++l) v[l] = l;
  return v;
}

#if defined(__AVX512F__)
using wide = v16f;
#else
using wide = v8f;
#endif

}  // namespace kiln::cpu::simd
