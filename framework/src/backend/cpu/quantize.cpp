// Keras's AbsMaxQuantizer over the last axis in one kernel: the per-row
// activation quantization of an int8 Dense. As separate ops it is six passes
// over the activations (abs, max, multiply, round, clip, cast) plus their
// dispatch; here it is one read for the maximum and one read and write for the
// values, with the same float32 arithmetic, so the results are the same bits.
#include <algorithm>
#include <cmath>
#include <cstdint>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/denormals.h"
#include "backend/cpu/parallel.h"

namespace kiln::cpu {

namespace {

/// max |x_i|; a NaN wins, as in the max reduction.
float abs_max(const float* x, int64_t n) {
  float m = -INFINITY;
  int64_t i = 0;
#if defined(__AVX2__)
  const __m256 sign = _mm256_set1_ps(-0.0f);
  // Four independent maxima, so that the loop is not one chain of vmaxps latencies.
  __m256 acc[4], nan = _mm256_setzero_ps();
  for (auto& a : acc) a = _mm256_set1_ps(-INFINITY);
  for (; i + 32 <= n; i += 32)
    for (int j = 0; j < 4; ++j) {
      const __m256 v = _mm256_andnot_ps(sign, _mm256_loadu_ps(x + i + 8 * j));
      acc[j] = _mm256_max_ps(acc[j], v);
      nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    }
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_andnot_ps(sign, _mm256_loadu_ps(x + i));
    acc[0] = _mm256_max_ps(acc[0], v);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
  if (!_mm256_testz_ps(nan, nan)) return NAN;
  acc[0] = _mm256_max_ps(_mm256_max_ps(acc[0], acc[1]), _mm256_max_ps(acc[2], acc[3]));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc[0]);
  for (float v : lanes) m = std::max(m, v);
#endif
  for (; i < n; ++i) {
    const float v = std::fabs(x[i]);
    if (v != v) return v;
    m = std::max(m, v);
  }
  return m;
}

/// q = clip(round(x · s), lo, hi) as int8 (round half to even, as the round op).
void quantize_row(const float* x, int64_t n, float s, float lo, float hi, int8_t* q) {
  int64_t i = 0;
#if defined(__AVX2__)
  const __m256 vs = _mm256_set1_ps(s), vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (; i + 32 <= n; i += 32) {
    __m256i w[4];
    for (int j = 0; j < 4; ++j) {
      __m256 v = _mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i + 8 * j), vs),
                                 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      w[j] = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(v, vlo), vhi));
    }
    // Packing works within 128-bit lanes; the permute puts the 32 bytes back in order.
    const __m256i bytes = _mm256_packs_epi16(_mm256_packs_epi32(w[0], w[1]), _mm256_packs_epi32(w[2], w[3]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), _mm256_permutevar8x32_epi32(bytes, order));
  }
#endif
  for (; i < n; ++i) {
    float v = std::nearbyint(x[i] * s);
    v = v > lo ? v : lo;  // vmaxps's and vminps's order: a NaN becomes lo, as in the vector loop
    q[i] = static_cast<int8_t>(v < hi ? v : hi);
  }
}

}  // namespace

void CpuBackend::abs_max_quantize(const Tensor& x, double value_min, double value_max, double epsilon, Tensor& q,
                                  Tensor& scale) {
  FlushDenormals flush;
  const int64_t n = x.rank() == 0 ? 1 : x.shape()[-1];
  if (n == 0 || x.size() == 0) return;
  const float lo = static_cast<float>(value_min), hi = static_cast<float>(value_max);
  const float eps = static_cast<float>(epsilon);
  const float* xp = host_ptr<float>(x);
  int8_t* qp = host_ptr<int8_t>(q);
  float* sp = host_ptr<float>(scale);
  parallel_for(
      x.size() / n,
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const float s = hi / (abs_max(xp + r * n, n) + eps);
          sp[r] = s;
          quantize_row(xp + r * n, n, s, lo, hi, qp + r * n);
        }
      },
      std::max<int64_t>(1, (1 << 14) / n));
}

}  // namespace kiln::cpu

namespace kiln::cpu {

bool CpuBackend::int8_matmul_dequantize(const Tensor& a, const Tensor& b, const Tensor& row_scale,
                                        const Tensor& col_scale, const Tensor* bias, bool relu, Tensor& out) {
#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
  FlushDenormals flush;
  const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  if (m == 0 || n == 0) return true;
  int8_gemm_vnni(false, false, m, n, k, host_ptr<int8_t>(a), host_ptr<int8_t>(b),
                 {.dequantized = host_ptr<float>(out),
                  .row_scale = host_ptr<float>(row_scale),
                  .col_scale = host_ptr<float>(col_scale),
                  .bias = bias ? host_ptr<float>(*bias) : nullptr,
                  .relu = relu});
  return true;
#else
  // Only the AVX-512 VNNI kernel has the dequantizing output pass (has_int8_matmul_dequantize).
  (void)a, (void)b, (void)row_scale, (void)col_scale, (void)bias, (void)relu, (void)out;
  return false;
#endif
}

}  // namespace kiln::cpu
