#include "backend/cpu/reference.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kiln/backend/cpu_kernels.h"

namespace kiln {
namespace {
std::atomic<bool> g_reference{false};
}
void set_cpu_kernels(CpuKernels kernels) { g_reference.store(kernels == CpuKernels::reference, std::memory_order_relaxed); }
CpuKernels cpu_kernels() { return g_reference.load(std::memory_order_relaxed) ? CpuKernels::reference : CpuKernels::fast; }
}  // namespace kiln

namespace kiln::cpu {

bool reference_kernels() { return cpu_kernels() == CpuKernels::reference; }

namespace reference {

template <class T>
void conv2d(const T* x, const T* w, const backend::Conv2DParams& p, T* out) {
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox)
        for (int64_t co = 0; co < p.c_out; ++co) {
          T acc = 0;
          for (int64_t ky = 0; ky < p.kh; ++ky)
            for (int64_t kx = 0; kx < p.kw; ++kx) {
              const int64_t iy = oy * p.stride_h + ky * p.dil_h - p.pad_top;
              const int64_t ix = ox * p.stride_w + kx * p.dil_w - p.pad_left;
              if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
              for (int64_t ci = 0; ci < p.c_in; ++ci)
                acc += x[((n * p.h + iy) * p.w + ix) * p.c_in + ci] * w[((ky * p.kw + kx) * p.c_in + ci) * p.c_out + co];
            }
          out[((n * p.oh + oy) * p.ow + ox) * p.c_out + co] = acc;
        }
}

template <class T>
void conv2d_backward_filter(const T* x, const T* dy, const backend::Conv2DParams& p, T* dw) {
  std::fill(dw, dw + p.kh * p.kw * p.c_in * p.c_out, T(0));
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox)
        for (int64_t ky = 0; ky < p.kh; ++ky)
          for (int64_t kx = 0; kx < p.kw; ++kx) {
            const int64_t iy = oy * p.stride_h + ky * p.dil_h - p.pad_top;
            const int64_t ix = ox * p.stride_w + kx * p.dil_w - p.pad_left;
            if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
            for (int64_t ci = 0; ci < p.c_in; ++ci)
              for (int64_t co = 0; co < p.c_out; ++co)
                dw[((ky * p.kw + kx) * p.c_in + ci) * p.c_out + co] +=
                    x[((n * p.h + iy) * p.w + ix) * p.c_in + ci] * dy[((n * p.oh + oy) * p.ow + ox) * p.c_out + co];
          }
}

template <class T>
void max_pool2d(const T* x, const backend::Pool2DParams& p, T* out, int32_t* argmax) {
  std::vector<T> best(static_cast<std::size_t>(p.c));
  std::vector<int32_t> bidx(static_cast<std::size_t>(p.c));
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        std::fill(best.begin(), best.end(), -std::numeric_limits<T>::infinity());
        std::fill(bidx.begin(), bidx.end(), -1);
        for (int64_t ky = 0; ky < p.pool_h; ++ky) {
          const int64_t iy = oy * p.stride_h + ky - p.pad_top;
          if (iy < 0 || iy >= p.h) continue;
          for (int64_t kx = 0; kx < p.pool_w; ++kx) {
            const int64_t ix = ox * p.stride_w + kx - p.pad_left;
            if (ix < 0 || ix >= p.w) continue;
            const int64_t base = ((n * p.h + iy) * p.w + ix) * p.c;
            // The first element of the window wins ties; the first NaN wins, and stays.
            for (int64_t c = 0; c < p.c; ++c)
              if (bidx[c] < 0 || x[base + c] > best[c] || (x[base + c] != x[base + c] && best[c] == best[c])) {
                best[c] = x[base + c];
                bidx[c] = static_cast<int32_t>(base + c);
              }
          }
        }
        const int64_t o = ((n * p.oh + oy) * p.ow + ox) * p.c;
        std::memcpy(out + o, best.data(), sizeof(T) * p.c);
        if (argmax) std::memcpy(argmax + o, bidx.data(), sizeof(int32_t) * p.c);
      }
}

template <class T>
void max_pool2d_backward(const T* dy, const int32_t* argmax, int64_t dy_size, int64_t dx_size, T* dx) {
  std::fill(dx, dx + dx_size, T(0));
  for (int64_t i = 0; i < dy_size; ++i)
    if (argmax[i] >= 0) dx[argmax[i]] += dy[i];
}

template <class T>
void dropout(const T* x, int64_t n, double rate, uint64_t seed, T* out, T* mask) {
  const T scale = static_cast<T>(1.0 / (1.0 - rate));
  const uint32_t threshold = dropout_threshold(rate);
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t z = splitmix64_at(seed, static_cast<uint64_t>(i / 2));
    const uint32_t r = static_cast<uint32_t>(i % 2 == 0 ? z : z >> 32);
    mask[i] = r >= threshold ? scale : T(0);
    out[i] = x[i] * mask[i];
  }
}

template <class T>
void bias_add(const T* x, const T* bias, int64_t rows, int64_t c, bool relu, T* out) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < c; ++j) {
      const T v = x[r * c + j] + bias[j];
      out[r * c + j] = relu && v <= T(0) ? T(0) : v;  // NaN passes through
    }
}

template <class T>
void bias_add_backward(const T* dy, const T* y, int64_t rows, int64_t c, bool relu, T* dx, T* db) {
  std::fill(db, db + c, T(0));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < c; ++j) {
      const T g = relu && !(y[r * c + j] > T(0)) ? T(0) : dy[r * c + j];
      if (relu) dx[r * c + j] = g;
      db[j] += g;
    }
}

template <class T>
void batch_norm_training(const T* x, const T* gamma, const T* beta, int64_t rows, int64_t c, double eps, T* y, T* mean,
                         T* var) {
  for (int64_t j = 0; j < c; ++j) {
    double s = 0;
    for (int64_t r = 0; r < rows; ++r) s += x[r * c + j];
    const double m = rows > 0 ? s / rows : std::numeric_limits<double>::quiet_NaN();
    double q = 0;
    for (int64_t r = 0; r < rows; ++r) q += (x[r * c + j] - m) * (x[r * c + j] - m);
    const double v = rows > 0 ? q / rows : std::numeric_limits<double>::quiet_NaN();
    mean[j] = static_cast<T>(m);
    var[j] = static_cast<T>(v);
    const double scale = (gamma ? gamma[j] : 1.0) / std::sqrt(v + eps);
    for (int64_t r = 0; r < rows; ++r)
      y[r * c + j] = static_cast<T>((x[r * c + j] - m) * scale + (beta ? beta[j] : 0.0));
  }
}

template <class T>
void batch_norm_training_backward(const T* dy, const T* x, const T* mean, const T* var, const T* gamma, int64_t rows,
                                  int64_t c, double eps, T* dx, T* dgamma, T* dbeta) {
  for (int64_t j = 0; j < c; ++j) {
    const double inv = 1.0 / std::sqrt(static_cast<double>(var[j]) + eps);
    double sdy = 0, sdyx = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const double xhat = (x[r * c + j] - static_cast<double>(mean[j])) * inv;
      sdy += dy[r * c + j];
      sdyx += dy[r * c + j] * xhat;
    }
    if (dgamma) dgamma[j] = static_cast<T>(sdyx);
    if (dbeta) dbeta[j] = static_cast<T>(sdy);
    const double g = (gamma ? gamma[j] : 1.0) * inv;
    for (int64_t r = 0; r < rows; ++r) {
      const double xhat = (x[r * c + j] - static_cast<double>(mean[j])) * inv;
      dx[r * c + j] = static_cast<T>(g * (dy[r * c + j] - sdy / rows - xhat * sdyx / rows));
    }
  }
}

#define KILN_REFERENCE_INSTANTIATE(T)                                                                              \
  template void conv2d<T>(const T*, const T*, const backend::Conv2DParams&, T*);                                   \
  template void conv2d_backward_filter<T>(const T*, const T*, const backend::Conv2DParams&, T*);                   \
  template void max_pool2d<T>(const T*, const backend::Pool2DParams&, T*, int32_t*);                               \
  template void max_pool2d_backward<T>(const T*, const int32_t*, int64_t, int64_t, T*);                            \
  template void dropout<T>(const T*, int64_t, double, uint64_t, T*, T*);                                           \
  template void bias_add<T>(const T*, const T*, int64_t, int64_t, bool, T*);                                       \
  template void bias_add_backward<T>(const T*, const T*, int64_t, int64_t, bool, T*, T*);                     \
  template void batch_norm_training<T>(const T*, const T*, const T*, int64_t, int64_t, double, T*, T*, T*);      \
  template void batch_norm_training_backward<T>(const T*, const T*, const T*, const T*, const T*, int64_t, int64_t, \
                                                double, T*, T*, T*);
KILN_REFERENCE_INSTANTIATE(float)
KILN_REFERENCE_INSTANTIATE(double)
#undef KILN_REFERENCE_INSTANTIATE

}  // namespace reference
}  // namespace kiln::cpu
