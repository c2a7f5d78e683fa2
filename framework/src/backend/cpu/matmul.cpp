// CPU matmul: floating types through OpenBLAS sgemm/dgemm (split by rows or
// columns over Kiln's pool), integers through a plain triple loop.
#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>
#include <utility>

#include "backend/cpu/blas_kernels.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/denormals.h"
#include "backend/cpu/parallel.h"
#include "core/dispatch.h"

namespace kiln::cpu {

namespace {
// Kiln owns the threading: OpenBLAS runs single-threaded and big GEMMs are
// split by rows over Kiln's pool. With OpenBLAS's own threads, its idle
// workers spin (sched_yield) while Kiln's kernels run, and on a 2-core
// machine that steals a third of the time.
struct BlasThreads {
  BlasThreads() {
    select_blas_kernels();
    openblas_set_num_threads(1);
  }
};
void ensure_single_threaded_blas() { static BlasThreads once; }

template <class T>
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
               T* c, int64_t ldc, T beta) {
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k,
                1.0f, a, (int)lda, b, (int)ldb, beta, c, (int)ldc);
  else
    cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k,
                1.0, a, (int)lda, b, (int)ldb, beta, c, (int)ldc);
}

/// Empty products (nothing to do, or C = beta·C with k = 0); true when it handled the call.
template <class T>
bool empty_gemm(int64_t m, int64_t n, int64_t k, T* c, T beta) {
  if (m == 0 || n == 0) return true;
  if (k != 0) return false;
  if (beta == 0) std::memset(c, 0, sizeof(T) * m * n);
  return true;
}

template <class T>
void gemm_impl(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
               T* c, int64_t ldc, T beta) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t r = 0; r < m; ++r)
      for (int64_t j = 0; j < n; ++j) c[r * ldc + j] = beta == T(0) ? T(0) : beta * c[r * ldc + j];
    return;
  }
  ensure_single_threaded_blas();
  const int threads = num_threads();
  const double flops = 2.0 * static_cast<double>(m) * n * k;
  if (threads <= 1 || flops < 4e5) {
    blas_gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, beta);
    return;
  }
  if (m >= n) {
    // Row blocks of C: rows of A (or columns when A is transposed).
    parallel_for_parts(m, threads, [&](int, int64_t r0, int64_t r1) {
      const T* ab = ta ? a + r0 : a + r0 * lda;
      blas_gemm(ta, tb, r1 - r0, n, k, ab, lda, b, ldb, c + r0 * ldc, ldc, beta);
    });
  } else {
    // Column blocks of C: columns of B (or rows when B is transposed).
    parallel_for_parts(n, threads, [&](int, int64_t c0, int64_t c1) {
      const T* bb = tb ? b + c0 * ldb : b + c0;
      blas_gemm(ta, tb, m, c1 - c0, k, a, lda, bb, ldb, c + c0, ldc, beta);
    });
  }
}
}  // namespace

namespace {
/// Integers have no BLAS. Arithmetic is unsigned, so overflow wraps (as
/// TensorFlow's integer matmul does) instead of being undefined.
template <class T>
void integer_matmul(bool ta, bool tb, int64_t M, int64_t N, int64_t K, const T* A, const T* B, T* C) {
  using U = std::make_unsigned_t<T>;
  auto a_at = [&](int64_t r, int64_t k) { return static_cast<U>(ta ? A[k * M + r] : A[r * K + k]); };
  constexpr int64_t kLanes = 16, kMaxK = 64;
  if (!tb && N <= kLanes && K <= kMaxK) {
    // Narrow products (the guide's 10x10 powers): B padded to 16 columns, so
    // each row of C is 16 accumulators the compiler keeps in vector registers.
    U padded[kMaxK * kLanes];
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < kLanes; ++j) padded[k * kLanes + j] = j < N ? static_cast<U>(B[k * N + j]) : U(0);
    for (int64_t r = 0; r < M; ++r) {
      U acc[kLanes] = {};
      for (int64_t k = 0; k < K; ++k) {
        const U a = a_at(r, k);
        for (int64_t j = 0; j < kLanes; ++j) acc[j] += a * padded[k * kLanes + j];
      }
      for (int64_t j = 0; j < N; ++j) C[r * N + j] = static_cast<T>(acc[j]);
    }
    return;
  }
  std::vector<U> acc(static_cast<std::size_t>(N));
  for (int64_t r = 0; r < M; ++r) {
    if (tb) {
      for (int64_t j = 0; j < N; ++j) {
        U sum = 0;
        for (int64_t k = 0; k < K; ++k) sum += a_at(r, k) * static_cast<U>(B[j * K + k]);
        acc[j] = sum;
      }
    } else {
      // Rows of C accumulate scaled rows of B (i-k-j order): the inner loop is contiguous and vectorises.
      std::fill(acc.begin(), acc.end(), U(0));
      for (int64_t k = 0; k < K; ++k) {
        const U a = a_at(r, k);
        const T* b = B + k * N;
        for (int64_t j = 0; j < N; ++j) acc[j] += a * static_cast<U>(b[j]);
      }
    }
    for (int64_t j = 0; j < N; ++j) C[r * N + j] = static_cast<T>(acc[j]);
  }
}
}  // namespace

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c, float beta) {
  gemm_impl<float>(ta, tb, m, n, k, a, ta ? m : k, b, tb ? k : n, c, n, beta);
}
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c, double beta) {
  gemm_impl<double>(ta, tb, m, n, k, a, ta ? m : k, b, tb ? k : n, c, n, beta);
}
void gemm_strided(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                  int64_t ldb, float* c, int64_t ldc, float beta) {
  gemm_impl<float>(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, beta);
}
void gemm_strided(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
                  int64_t ldb, double* c, int64_t ldc, double beta) {
  gemm_impl<double>(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, beta);
}
void gemm_serial_strided(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                         int64_t ldb, float* c, int64_t ldc, float beta) {
  if (m == 0 || n == 0 || k == 0) return gemm_impl<float>(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, beta);
  ensure_single_threaded_blas();
  blas_gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, beta);
}
void gemm_serial_strided(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                         const double* b, int64_t ldb, double* c, int64_t ldc, double beta) {
  if (m == 0 || n == 0 || k == 0) return gemm_impl<double>(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, beta);
  ensure_single_threaded_blas();
  blas_gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, beta);
}

template <class T>
void gemm_serial_impl(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c, T beta) {
  if (empty_gemm(m, n, k, c, beta)) return;
  ensure_single_threaded_blas();
  blas_gemm(ta, tb, m, n, k, a, ta ? m : k, b, tb ? k : n, c, n, beta);
}

void gemm_serial(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
                 float beta) {
  gemm_serial_impl<float>(ta, tb, m, n, k, a, b, c, beta);
}
void gemm_serial(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c,
                 double beta) {
  gemm_serial_impl<double>(ta, tb, m, n, k, a, b, c, beta);
}

void CpuBackend::matmul(const Tensor& a, const Tensor& b, Tensor& out, bool ta, bool tb) {
  FlushDenormals flush;
  // a: (Ba, r, c), b: (Bb, r, c), out: (B, M, N)
  const auto& ad = a.shape().dims();
  const auto& bd = b.shape().dims();
  const int64_t B = out.shape()[0], M = out.shape()[1], N = out.shape()[2];
  const int64_t K = ta ? ad[1] : ad[2];
  const int64_t a_step = ad[0] == 1 ? 0 : ad[1] * ad[2];
  const int64_t b_step = bd[0] == 1 ? 0 : bd[1] * bd[2];
  if (a.dtype() == DType::int8) {
    const auto* ap = static_cast<const int8_t*>(a.raw_data());
    const auto* bp = static_cast<const int8_t*>(b.raw_data());
    auto* op = static_cast<int32_t*>(out.raw_data());
    for (int64_t i = 0; i < B; ++i) int8_gemm(ta, tb, M, N, K, ap + i * a_step, bp + i * b_step, op + i * M * N);
    return;
  }
  dispatch_dtype(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* ap = static_cast<const T*>(a.raw_data());
    const T* bp = static_cast<const T*>(b.raw_data());
    T* op = static_cast<T*>(out.raw_data());
    for (int64_t i = 0; i < B; ++i) {
      const T* A = ap + i * a_step;
      const T* Bm = bp + i * b_step;
      T* C = op + i * M * N;
      if constexpr (std::is_floating_point_v<T>) {
        gemm(ta, tb, M, N, K, A, Bm, C, T(0));
      } else if constexpr (!std::is_same_v<T, bool>) {
        integer_matmul(ta, tb, M, N, K, A, Bm, C);
      }
    }
  });
}

}  // namespace kiln::cpu
