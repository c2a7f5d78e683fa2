// CPU discrete Fourier transforms through FFTW (fftw3f for float32, fftw3 for float64),
// the only file that includes fftw3.h. Kiln's complex tensors are split (real and
// imaginary parts apart), so each row is interleaved into this thread's scratch buffer,
// transformed out of place into the buffer's second half, and split back. One plan per
// (length, direction, precision) serves every row of every call through FFTW's new-array
// execute functions: its conditions (the same in/out-of-place-ness and alignment as at
// planning, which the 64-byte aligned scratch always has) hold by construction, which
// split arrays of separately allocated tensors would not give (FFTW also requires the
// same distance between their real and imaginary parts). Execution is thread-safe, so
// rows run in parallel on Kiln's pool; planning is not, so plans are made under a lock
// (FFTW_ESTIMATE: without touching the arrays) and kept for the process.
#include <fftw3.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/parallel.h"
#include "core/dispatch.h"

namespace kiln::cpu {

namespace {

template <class T>
struct Fftw;
template <>
struct Fftw<float> {
  using Plan = fftwf_plan;
  using Complex = fftwf_complex;
  static Plan plan(int n, Complex* in, Complex* out, int sign) {
    return fftwf_plan_dft_1d(n, in, out, sign, FFTW_ESTIMATE);
  }
  static void run(Plan p, Complex* in, Complex* out) { fftwf_execute_dft(p, in, out); }
  static void destroy(Plan p) { fftwf_destroy_plan(p); }
  static void cleanup() { fftwf_cleanup(); }
};
template <>
struct Fftw<double> {
  using Plan = fftw_plan;
  using Complex = fftw_complex;
  static Plan plan(int n, Complex* in, Complex* out, int sign) {
    return fftw_plan_dft_1d(n, in, out, sign, FFTW_ESTIMATE);
  }
  static void run(Plan p, Complex* in, Complex* out) { fftw_execute_dft(p, in, out); }
  static void destroy(Plan p) { fftw_destroy_plan(p); }
  static void cleanup() { fftw_cleanup(); }
};

/// The plans made so far, by (length, direction). At exit they and FFTW's planner
/// state are freed, so the process returns FFTW's memory (and leak checkers agree).
template <class T>
struct FftwPlanCache {
  std::mutex mu;
  std::map<std::pair<int, int>, typename Fftw<T>::Plan> plans;
  ~FftwPlanCache() {
    for (auto& entry : plans) Fftw<T>::destroy(entry.second);
    Fftw<T>::cleanup();
  }
};

/// The plan of length n and direction `sign` for T, made once (under the lock) and kept.
template <class T>
typename Fftw<T>::Plan plan_for(int n, int sign, typename Fftw<T>::Complex* in, typename Fftw<T>::Complex* out) {
  static FftwPlanCache<T> cache;
  std::lock_guard<std::mutex> lock(cache.mu);
  auto it = cache.plans.find({n, sign});
  if (it != cache.plans.end()) return it->second;
  auto p = Fftw<T>::plan(n, in, out, sign);
  if (!p) throw std::runtime_error("fft: FFTW could not plan a transform of length " + std::to_string(n));
  cache.plans.emplace(std::pair{n, sign}, p);
  return p;
}

template <class T>
void transform_rows(const T* re, const T* im, T* ore, T* oim, int64_t rows, int64_t n, bool inverse) {
  if (n == 0 || rows == 0) return;
  using Complex = typename Fftw<T>::Complex;
  const int sign = inverse ? FFTW_BACKWARD : FFTW_FORWARD;
  parallel_for(
      rows,
      [&](int64_t b, int64_t e) {
        auto* in = static_cast<Complex*>(thread_scratch(Scratch::kernel, 2 * static_cast<std::size_t>(n) * sizeof(Complex)));
        Complex* out = in + n;
        auto plan = plan_for<T>(static_cast<int>(n), sign, in, out);
        for (int64_t r = b; r < e; ++r) {
          const T* xr = re + r * n;
          const T* xi = im + r * n;
          for (int64_t j = 0; j < n; ++j) {
            in[j][0] = xr[j];
            in[j][1] = xi[j];
          }
          Fftw<T>::run(plan, in, out);
          T* yr = ore + r * n;
          T* yi = oim + r * n;
          for (int64_t j = 0; j < n; ++j) {
            yr[j] = out[j][0];
            yi[j] = out[j][1];
          }
        }
      },
      std::max<int64_t>(1, 4096 / n));
}

}  // namespace

bool CpuBackend::has_fft(DType dtype) const { return dtype == DType::float32 || dtype == DType::float64; }

void CpuBackend::fft(const Tensor& re, const Tensor& im, bool inverse, Tensor& out_re, Tensor& out_im) {
  const int64_t n = re.shape().rank() == 0 ? 1 : re.shape()[-1];
  const int64_t rows = n == 0 ? 0 : re.shape().num_elements() / n;
  dispatch_float(re.dtype(), "fft", [&](auto tag) {
    using T = decltype(tag);
    transform_rows(host_ptr<T>(re), host_ptr<T>(im), host_ptr<T>(out_re), host_ptr<T>(out_im), rows, n, inverse);
  });
}

}  // namespace kiln::cpu
