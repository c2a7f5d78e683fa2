#pragma once
// Private: the plain reference loops kept beside the fast CPU kernels. They are
// the specification: straightforward, serial and unvectorised. The fast kernels
// must agree with them to float tolerance (tests/framework/test_kernels.cpp runs
// both through kiln::set_cpu_kernels). Where the fast kernel covers only a
// special case, the reference loop is also its general fallback.
#include <atomic>
#include <cstdint>

#include "backend/backend.h"

namespace kiln::cpu {

/// True when kiln::set_cpu_kernels(CpuKernels::reference) is in effect.
bool reference_kernels();

namespace reference {

template <class T>
void conv2d(const T* x, const T* w, const backend::Conv2DParams& p, T* out);
template <class T>
void conv2d_backward_filter(const T* x, const T* dy, const backend::Conv2DParams& p, T* dw);
/// argmax holds the flat input index of each maximum (-1 for an empty window).
template <class T>
void max_pool2d(const T* x, const backend::Pool2DParams& p, T* out, int32_t* argmax);
template <class T>
void max_pool2d_backward(const T* dy, const int32_t* argmax, int64_t dy_size, int64_t dx_size, T* dx);
/// splitmix64 from `seed`: draw j gives the uniforms of elements 2j and 2j+1.
template <class T>
void dropout(const T* x, int64_t n, double rate, uint64_t seed, T* out, T* mask);
/// x and out are (rows, c); out may alias x.
template <class T>
void bias_add(const T* x, const T* bias, int64_t rows, int64_t c, bool relu, T* out);
/// dx = relu ? dy·(y > 0) : dy (written only when relu), db = column sums of dx.
template <class T>
void bias_add_backward(const T* dy, const T* y, int64_t rows, int64_t c, bool relu, T* dx, T* db);

/// Batch normalization over rows of a (rows, c) matrix, training mode; gamma/beta may be null.
/// Sums in double. mean and var are (c,); var is the population variance.
template <class T>
void batch_norm_training(const T* x, const T* gamma, const T* beta, int64_t rows, int64_t c, double eps, T* y, T* mean,
                         T* var);
/// dx = gamma·inv·(dy − mean(dy) − x̂·mean(dy·x̂)), dgamma = Σ dy·x̂, dbeta = Σ dy (null: not wanted).
template <class T>
void batch_norm_training_backward(const T* dy, const T* x, const T* mean, const T* var, const T* gamma, int64_t rows,
                                  int64_t c, double eps, T* dx, T* dgamma, T* dbeta);

}  // namespace reference

/// One splitmix64 draw for counter j of a stream: the dropout RNG. Counter-based,
/// so any range of a mask can be generated independently (and in parallel).
inline uint64_t splitmix64_at(uint64_t seed, uint64_t j) {
  uint64_t z = seed + (j + 1) * 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
inline uint32_t dropout_threshold(double rate) { return static_cast<uint32_t>(rate * 4294967296.0); }

}  // namespace kiln::cpu
