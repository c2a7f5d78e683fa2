// The CPU backend's fused optimizer steps (Backend::adam_update, sgd_update,
// rmsprop_update): one pass over a variable and its slots, with the composed
// ops' arithmetic in the same order, so a fused step equals the composed one bit for bit.
#include <cmath>
#include <type_traits>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/denormals.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/simd.h"
#include "core/dispatch.h"
#include "kiln/backend/cpu_kernels.h"

namespace kiln::cpu {

namespace {
// One Adam step over [i0, i1): the scalar form is the reference.
template <class T>
void adam_range(T* __restrict w, T* __restrict m, T* __restrict v, T* __restrict vh, const T* __restrict g, int64_t i0,
                int64_t i1, T alpha, T one_b1, T one_b2, T eps) {
  for (int64_t i = i0; i < i1; ++i) {
    const T gi = g[i];
    const T mi = m[i] + (gi - m[i]) * one_b1;
    const T vi = v[i] + (gi * gi - v[i]) * one_b2;
    m[i] = mi;
    v[i] = vi;
    T d = vi;
    if (vh) {
      vh[i] = vh[i] > vi ? vh[i] : vi;
      d = vh[i];
    }
    w[i] -= mi * alpha / (std::sqrt(d) + eps);
  }
}

// The same arithmetic 8 floats at a time (GCC does not vectorise the scalar
// loop through the lambda's captured pointers). Same operations in the same
// order, so the results are identical to adam_range.
void adam_range_f32(float* __restrict w, float* __restrict m, float* __restrict v, float* __restrict vh,
                    const float* __restrict g, int64_t i0, int64_t i1, float alpha, float one_b1, float one_b2,
                    float eps) {
  using namespace cpu::simd;
  int64_t i = i0;
  const v8f a = splat(alpha), b1 = splat(one_b1), b2 = splat(one_b2), e = splat(eps);
  for (; i + 8 <= i1; i += 8) {
    const v8f gi = load8(g + i), m0 = load8(m + i), v0 = load8(v + i);
    const v8f mi = m0 + (gi - m0) * b1;
    const v8f vi = v0 + (gi * gi - v0) * b2;
    store8(m + i, mi);
    store8(v + i, vi);
    v8f d = vi;
    if (vh) {
      const v8f h = load8(vh + i);
      d = h > vi ? h : vi;
      store8(vh + i, d);
    }
    v8f root;
    for (int l = 0; l < 8; ++l) root[l] = std::sqrt(d[l]);  // compiles to vsqrtps
    store8(w + i, load8(w + i) - mi * a / (root + e));
  }
  adam_range<float>(w, m, v, vh, g, i, i1, alpha, one_b1, one_b2, eps);
}

template <class T>
void adam_cpu(T* w, T* m, T* v, T* vh, const T* g, int64_t n, T alpha, T one_b1, T one_b2, T eps) {
  const bool fast = std::is_same_v<T, float> && cpu_kernels() == CpuKernels::fast;
  cpu::parallel_for(
      n,
      [&](int64_t i0, int64_t i1) {
        if constexpr (std::is_same_v<T, float>)
          if (fast) return adam_range_f32(w, m, v, vh, g, i0, i1, alpha, one_b1, one_b2, eps);
        adam_range<T>(w, m, v, vh, g, i0, i1, alpha, one_b1, one_b2, eps);
      },
      1 << 15);
}
}  // namespace

bool CpuBackend::adam_update(Tensor& w, Tensor& m, Tensor& v, Tensor* v_hat, const Tensor& g, HostScalar alpha,
                             double one_b1, double one_b2, double eps) {
  FlushDenormals flush;
  dispatch_float(w.dtype(), "adam_update", [&](auto tag) {
    using T = decltype(tag);
    adam_cpu<T>(host_ptr<T>(w), host_ptr<T>(m), host_ptr<T>(v), v_hat ? host_ptr<T>(*v_hat) : nullptr, host_ptr<T>(g), w.size(),
                static_cast<T>(alpha), static_cast<T>(one_b1), static_cast<T>(one_b2), static_cast<T>(eps));
  });
  return true;
}


namespace {
template <class T>
void sgd_range(T* __restrict w, T* __restrict m, const T* __restrict g, int64_t i0, int64_t i1, T lr, T momentum,
               bool nesterov) {
  if (!m) {
    for (int64_t i = i0; i < i1; ++i) w[i] -= g[i] * lr;
    return;
  }
  for (int64_t i = i0; i < i1; ++i) {
    const T step = g[i] * lr;
    const T mi = m[i] * momentum - step;
    m[i] = mi;
    w[i] += nesterov ? mi * momentum - step : mi;
  }
}

template <class T>
void rmsprop_range(T* __restrict w, T* __restrict v, T* __restrict mom, T* __restrict avg, const T* __restrict g,
                   int64_t i0, int64_t i1, T lr, T rho, T one_rho, T momentum, T eps) {
  for (int64_t i = i0; i < i1; ++i) {
    const T gi = g[i];
    const T vi = v[i] * rho + gi * gi * one_rho;
    v[i] = vi;
    T d;
    if (avg) {
      const T ai = avg[i] * rho + gi * one_rho;
      avg[i] = ai;
      d = vi - ai * ai + eps;
    } else {
      d = vi + eps;
    }
    const T inc = gi * lr / std::sqrt(d);
    if (mom) {
      const T mi = mom[i] * momentum + inc;
      mom[i] = mi;
      w[i] -= mi;
    } else {
      w[i] -= inc;
    }
  }
}
}  // namespace

bool CpuBackend::sgd_update(Tensor& w, Tensor* m, const Tensor& g, HostScalar lr, double momentum, bool nesterov) {
  FlushDenormals flush;
  dispatch_float(w.dtype(), "sgd_update", [&](auto tag) {
    using T = decltype(tag);
    T* wp = host_ptr<T>(w);
    T* mp = m ? host_ptr<T>(*m) : nullptr;
    const T* gp = host_ptr<T>(g);
    const T l = static_cast<T>(lr), mo = static_cast<T>(momentum);
    cpu::parallel_for(w.size(), [&](int64_t i0, int64_t i1) { sgd_range<T>(wp, mp, gp, i0, i1, l, mo, nesterov); },
                      1 << 15);
  });
  return true;
}

bool CpuBackend::rmsprop_update(Tensor& w, Tensor& v, Tensor* mom, Tensor* avg, const Tensor& g, HostScalar lr,
                                double rho, double momentum, double eps) {
  FlushDenormals flush;
  dispatch_float(w.dtype(), "rmsprop_update", [&](auto tag) {
    using T = decltype(tag);
    T* wp = host_ptr<T>(w);
    T* vp = host_ptr<T>(v);
    T* mp = mom ? host_ptr<T>(*mom) : nullptr;
    T* ap = avg ? host_ptr<T>(*avg) : nullptr;
    const T* gp = host_ptr<T>(g);
    const T l = static_cast<T>(lr), r = static_cast<T>(rho), one_r = static_cast<T>(1 - rho),
            mo = static_cast<T>(momentum), e = static_cast<T>(eps);
    cpu::parallel_for(
        w.size(), [&](int64_t i0, int64_t i1) { rmsprop_range<T>(wp, vp, mp, ap, gp, i0, i1, l, r, one_r, mo, e); },
        1 << 15);
  });
  return true;
}

}  // namespace kiln::cpu
