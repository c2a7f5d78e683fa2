#pragma once
// Private: float32 exp, expm1, tanh, sigmoid and erf on whole SIMD vectors
// (simd.h), and a select that vectorizes, for the element-wise kernels. glibc
// evaluates these one element at a time through a call; here each is a short
// polynomial the compiler keeps in ymm registers. Accuracy, measured against
// double precision over the float range: exp and expm1 within 1 ulp, tanh,
// sigmoid and erf within 2 (erf within 1.1e-7 absolute). NaN gives NaN, and
// overflow gives inf, as the libm functions do.
//
// The polynomials: exp and expm1 use their Taylor series on a reduced argument
// (|r| <= ln2/2 and |x| < 1/2), truncated where the next term falls below
// 1e-9 relative; erf uses its Taylor series for |x| < 1, and for 1 <= |x| < 4
// writes erf = 1 - exp(-x^2) g(1/x), with g a degree-8 least-squares fit of
// erfc(x) exp(x^2) (scripts/fit_erfc.py reproduces the coefficients).
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "backend/cpu/simd.h"

namespace kiln::cpu::simd {

template <class V>
inline V splat_v(float v) {
  V r;
  for (int l = 0; l < lanes<V>; ++l) r[l] = v;
  return r;
}

/// Polynomial c[0] + c[1] t + ... + c[N-1] t^(N-1), by Horner's rule.
template <class V, int N>
inline V horner(V t, const float (&c)[N]) {
  V p = splat_v<V>(c[N - 1]);
  for (int i = N - 2; i >= 0; --i) p = p * t + c[i];
  return p;
}

/// 2^n for integer lanes n in [-126, 127], built from the exponent bits.
template <class V>
inline V pow2(int_vector<V> n) {
  return (V)((n + 127) << 23);
}

template <class V>
inline V exp_v(V x) {
  using I = int_vector<V>;
  // Below -104 the result is under the smallest denormal; above 89, over FLT_MAX.
  V c = x < -104.f ? splat_v<V>(-104.f) : x;
  c = c > 89.f ? splat_v<V>(89.f) : c;
  // n = round(c / ln2) by the 1.5 * 2^23 trick; NaN lanes take n = 0 and stay NaN through r.
  const float shifter = 12582912.f;
  V n = (c * 1.44269504088896341f + shifter) - shifter;
  n = n == n ? n : splat_v<V>(0.f);
  // r = c - n ln2 in two steps (ln2's high part has few bits, so n * hi is exact).
  V r = c - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  static constexpr float taylor[] = {1.f, 1.f, 1.f / 2, 1.f / 6, 1.f / 24, 1.f / 120, 1.f / 720, 1.f / 5040};
  V p = horner(r, taylor);
  // 2^n in two factors, so results near FLT_MAX and in the denormal range are both reachable.
  I ni = __builtin_convertvector(n, I);
  I half = ni >> 1;
  return p * pow2<V>(half) * pow2<V>(ni - half);
}

template <class V>
inline V expm1_v(V x) {
  // exp(x) - 1 cancels for small x; the series keeps the relative accuracy there.
  static constexpr float taylor[] = {1.f,        1.f / 2,      1.f / 6,       1.f / 24,       1.f / 120,
                                     1.f / 720,  1.f / 5040,   1.f / 40320,   1.f / 362880};
  V small = x * horner(x, taylor);
  V big = exp_v(x) - 1.f;
  V ax = x < 0.f ? -x : x;
  return ax < 0.5f ? small : big;
}

template <class V>
inline V tanh_v(V x) {
  // tanh|x| = -e / (e + 2) with e = expm1(-2|x|): accurate near 0 and exactly 1 for large |x|.
  using I = int_vector<V>;
  const I sign = (I)x & (I)splat_v<V>(-0.f);
  V ax = (V)((I)x & ~(I)splat_v<V>(-0.f));
  V e = expm1_v(-2.f * ax);
  V t = -e / (e + 2.f);
  return (V)((I)t | sign);
}

template <class V>
inline V sigmoid_v(V x) {
  // exp(-x) overflows to inf for x < -89, giving 0, the correctly rounded value there.
  return 1.f / (1.f + exp_v(-x));
}

template <class V>
inline V erf_v(V x) {
  using I = int_vector<V>;
  const I sign = (I)x & (I)splat_v<V>(-0.f);
  V ax = (V)((I)x & ~(I)splat_v<V>(-0.f));
  // 2/sqrt(pi) * sum (-1)^k x^(2k+1) / (k! (2k+1)), k = 0..10.
  static constexpr float taylor[] = {1.12837923f,     -0.376126379f,    0.112837918f,     -0.0268661715f,
                                     0.00522397785f,  -0.000854832702f, 0.000120553326f,  -1.49256502e-05f,
                                     1.64621144e-06f, -1.63658441e-07f, 1.48071928e-08f};
  V small = ax * horner(ax * ax, taylor);
  static constexpr float tail[] = {0.000246990268f, 0.5594154f,     0.0394737497f,  -0.462063104f, 0.474972546f,
                                   -0.210605457f,   -0.00324463635f, 0.041466441f, -0.0120784119f};
  V c = ax > 4.f ? splat_v<V>(4.f) : ax;
  c = c < 1.f ? splat_v<V>(1.f) : c;
  V big = 1.f - exp_v(-(c * c)) * horner(1.f / c, tail);
  V r = ax < 1.f ? small : big;
  r = ax == ax ? r : ax;  // NaN
  return (V)((I)r | sign);
}

/// f folded over term(0), ..., term(n − 1) into 16 independent lanes of T,
/// which the compiler keeps in vector registers (a single accumulator would be
/// a chain of dependent scalar operations), then the lanes pairwise. The order
/// depends only on n. term computes each value (a product of two arrays, a
/// float widened to double), so no array of them is stored.
template <class T, class F, class Term>
inline T fold_lanes_of(int64_t n, T init, F f, Term term) {
  constexpr int kLanes = 16;
  T lanes[kLanes];
  for (T& l : lanes) l = init;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; ++l) lanes[l] = f(lanes[l], term(i + l));
  for (int w = kLanes / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) lanes[l] = f(lanes[l], lanes[l + w]);
  T acc = lanes[0];
  for (; i < n; ++i) acc = f(acc, term(i));
  return acc;
}

/// f folded over x[0], ..., x[n − 1] as fold_lanes_of does.
template <class T, class F>
inline T fold_lanes(const T* x, int64_t n, T init, F f) {
  return fold_lanes_of(n, init, f, [x](int64_t i) { return x[i]; });
}

/// Σ term(i) for i < n in double, folded in lanes (fold_lanes_of).
template <class Term>
inline double sum_lanes(int64_t n, Term term) {
  return fold_lanes_of(n, 0.0, [](double a, double v) { return a + v; }, term);
}

/// c ? a : b by masking bits: GCC compiles `c ? a : b` over a bool array to a
/// branch per element, which random conditions mispredict half the time; this
/// form vectorizes. A bool holds 0 or 1.
template <class T>
inline T select_bits(bool c, T a, T b) {
  using U = std::conditional_t<sizeof(T) == 1, uint8_t,
                               std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  static_assert(sizeof(U) == sizeof(T));
  U ua, ub;
  std::memcpy(&ua, &a, sizeof a);
  std::memcpy(&ub, &b, sizeof b);
  const U mask = static_cast<U>(U(0) - static_cast<U>(c));
  const U r = static_cast<U>((ua & mask) | (ub & static_cast<U>(~mask)));
  T out;
  std::memcpy(&out, &r, sizeof out);
  return out;
}

/// Applies `f` to n floats, a whole vector at a time; the last partial vector
/// goes through a padded copy, so every element gets the same arithmetic.
template <class F>
inline void map_floats(const float* x, float* o, int64_t n, F f) {
  int64_t i = 0;
  for (; i + lanes<wide> <= n; i += lanes<wide>) store<wide>(o + i, f(load<wide>(x + i)));
  const int rest = static_cast<int>(n - i < lanes<wide> ? n - i : lanes<wide>);
  if (rest > 0) {
    float buf[lanes<wide>] = {};
    __builtin_memcpy(buf, x + i, sizeof(float) * rest);
    store<wide>(buf, f(load<wide>(buf)));
    __builtin_memcpy(o + i, buf, sizeof(float) * rest);
  }
}

}  // namespace kiln::cpu::simd
