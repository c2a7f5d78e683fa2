// CUDA kernels that do in one pass what would otherwise take several launches:
// element-wise chains from the graph compiler, bias + relu, and the optimizer
// updates. Each follows the CPU backend's formula operation for operation, in
// the variable's dtype, so the two devices differ only by rounding.
#include "backend/cuda/common.cuh"
#include "backend/cuda/elementwise_ops.cuh"
#include "backend/cuda/kernels.h"

namespace kiln::cuda::k {
namespace {

template <class T>
__device__ __forceinline__ T apply_unary(Un op, T v) {
  if constexpr (std::is_floating_point_v<T>) return unary_float(op, v);
  else return unary_int(op, v);
}

template <class T>
__global__ void fused_kernel(const __grid_constant__ FusedProgram p) {
  KILN_GRID_STRIDE(i, p.n) {
    for (int s = 0; s < p.n_steps; ++s) {
      const FusedStep st = p.steps[s];
      const T x = static_cast<const T*>(p.buf[st.a])[p.scalar[st.a] ? 0 : i];
      T r;
      if (st.unary >= 0) {
        r = apply_unary<T>(static_cast<Un>(st.unary), x);
      } else {
        const T y = static_cast<const T*>(p.buf[st.b])[p.scalar[st.b] ? 0 : i];
        r = arith<T>(static_cast<Bin>(st.binary), x, y);
      }
      static_cast<T*>(p.buf[st.out])[i] = r;
    }
  }
}

// I is the index type: 32-bit when n fits, since a 64-bit modulo per element
// made the pass compute-bound (about 2x its memory time on an H200).
template <class T, class I>
__global__ void bias_act_kernel(const T* x, const T* bias, T* out, I n, I c, bool relu) {
  for (I i = static_cast<I>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += static_cast<I>(gridDim.x) * blockDim.x) {
    const T v = x[i] + bias[i % c];
    out[i] = relu ? (v > T(0) ? v : T(0)) : v;
  }
}

template <class T>
__global__ void adam_kernel(T* w, T* m, T* v, T* vh, const T* g, int64_t n, T alpha, T one_b1, T one_b2, T eps) {
  KILN_GRID_STRIDE(i, n) {
    const T gi = g[i];
    const T mi = m[i] + (gi - m[i]) * one_b1;
    const T vi = v[i] + (gi * gi - v[i]) * one_b2;
    m[i] = mi;
    v[i] = vi;
    T d = vi;
    if (vh) {
      const T h = vh[i] > vi ? vh[i] : vi;
      vh[i] = h;
      d = h;
    }
    w[i] -= mi * alpha / (sqrt(d) + eps);
  }
}

template <class T>
__global__ void sgd_kernel(T* w, T* m, const T* g, int64_t n, T lr, T momentum, bool nesterov) {
  KILN_GRID_STRIDE(i, n) {
    const T step = g[i] * lr;
    if (!m) {
      w[i] -= step;
      continue;
    }
    const T mi = m[i] * momentum - step;
    m[i] = mi;
    w[i] += nesterov ? mi * momentum - step : mi;
  }
}

template <class T>
__global__ void rmsprop_kernel(T* w, T* v, T* mom, T* avg, const T* g, int64_t n, T lr, T rho, T one_rho, T momentum,
                               T eps) {
  KILN_GRID_STRIDE(i, n) {
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
    const T inc = gi * lr / sqrt(d);
    if (mom) {
      const T mi = mom[i] * momentum + inc;
      mom[i] = mi;
      w[i] -= mi;
    } else {
      w[i] -= inc;
    }
  }
}

template <class T>
__global__ void bn_inference_kernel(const T* x, const T* mean, const T* var, const T* gamma, const T* beta, T* y,
                                    uint32_t n, uint32_t c, T eps) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const uint32_t ch = i % c;
    T inv = T(1) / sqrt(var[ch] + eps);  // 1/sqrt, not rsqrt: the CPU's rounding
    if (gamma) inv *= gamma[ch];
    T v = (x[i] - mean[ch]) * inv;
    if (beta) v += beta[ch];
    y[i] = v;
  }
}

template <class T>
__global__ void scale_kernel(T* x, int64_t n, T f) {
  KILN_GRID_STRIDE(i, n) x[i] *= f;
}

}  // namespace

void fused_elementwise(DT dt, const FusedProgram& p, cudaStream_t s) {
  if (p.n <= 0 || p.n_steps == 0) return;
  switch (dt) {
    case DT::f32: fused_kernel<float><<<grid_for(p.n), kThreads, 0, s>>>(p); break;
    case DT::f64: fused_kernel<double><<<grid_for(p.n), kThreads, 0, s>>>(p); break;
    case DT::i32: fused_kernel<int32_t><<<grid_for(p.n), kThreads, 0, s>>>(p); break;
    case DT::i64: fused_kernel<int64_t><<<grid_for(p.n), kThreads, 0, s>>>(p); break;
    default: break;
  }
}

void bias_act(DT dt, const void* x, const void* bias, void* out, int64_t n, int64_t c, bool relu, cudaStream_t s) {
  if (n <= 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    const T* xp = static_cast<const T*>(x);
    const T* bp = static_cast<const T*>(bias);
    T* op = static_cast<T*>(out);
    // Grid-stride steps stay below 2^31 + n, so n < 2^30 keeps uint32 indices from wrapping.
    if (n < (int64_t(1) << 30))
      bias_act_kernel<T, uint32_t><<<grid_for(n), kThreads, 0, s>>>(xp, bp, op, static_cast<uint32_t>(n),
                                                                    static_cast<uint32_t>(c), relu);
    else
      bias_act_kernel<T, int64_t><<<grid_for(n), kThreads, 0, s>>>(xp, bp, op, n, c, relu);
  });
}

void adam(DT dt, void* w, void* m, void* v, void* vh, const void* g, int64_t n, double alpha, double one_b1,
          double one_b2, double eps, cudaStream_t s) {
  if (n <= 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    adam_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<T*>(w), static_cast<T*>(m), static_cast<T*>(v),
                                                    static_cast<T*>(vh), static_cast<const T*>(g), n, T(alpha),
                                                    T(one_b1), T(one_b2), T(eps));
  });
}

void sgd(DT dt, void* w, void* m, const void* g, int64_t n, double lr, double momentum, bool nesterov, cudaStream_t s) {
  if (n <= 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    sgd_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<T*>(w), static_cast<T*>(m), static_cast<const T*>(g), n,
                                                   T(lr), T(momentum), nesterov);
  });
}

void rmsprop(DT dt, void* w, void* v, void* mom, void* avg, const void* g, int64_t n, double lr, double rho,
             double momentum, double eps, cudaStream_t s) {
  if (n <= 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    rmsprop_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<T*>(w), static_cast<T*>(v), static_cast<T*>(mom),
                                                       static_cast<T*>(avg), static_cast<const T*>(g), n, T(lr), T(rho),
                                                       T(1 - rho), T(momentum), T(eps));
  });
}

bool bn_inference(DT dt, const void* x, const void* mean, const void* var, const void* gamma, const void* beta, void* y,
                  int64_t n, int64_t c, double eps, cudaStream_t s) {
  if (n >= (int64_t(1) << 30) || c <= 0) return false;
  if (n == 0) return true;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    bn_inference_kernel<T><<<grid_for(n), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(mean), static_cast<const T*>(var), static_cast<const T*>(gamma),
        static_cast<const T*>(beta), static_cast<T*>(y), static_cast<uint32_t>(n), static_cast<uint32_t>(c), T(eps));
  });
  return true;
}

void scale(DT dt, void* x, int64_t n, double factor, cudaStream_t s) {
  if (n <= 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    scale_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<T*>(x), n, T(factor));
  });
}

}  // namespace kiln::cuda::k
