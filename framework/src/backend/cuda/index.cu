// CUDA kernels: gather / scatter_add (embedding lookups and their gradient),
// one_hot, and dropout with the Philox counter-based generator.
#include "backend/cuda/common.cuh"
#include "backend/cuda/kernels.h"
#include "backend/cuda/philox.h"

namespace kiln::cuda::k {
namespace {

// Elements are moved as raw words of the element size: gather never looks at values.
template <class W>
__global__ void gather_kernel(const W* params, DT idx_dt, const void* idx, int64_t k, W* out, int64_t outer, int64_t n,
                              int64_t inner) {
  KILN_GRID_STRIDE(t, outer * k * inner) {
    const int64_t c = t % inner;
    const int64_t aj = t / inner;
    const int64_t j = aj % k, a = aj / k;
    int64_t id = load_index(idx_dt, idx, j);
    if (id < 0) id += n;
    // Out of range: zeros, as TF's GPU kernel (a kernel cannot raise the CPU's IndexError).
    out[t] = (id >= 0 && id < n) ? params[(a * n + id) * inner + c] : W(0);
  }
}

template <class T>
__global__ void scatter_add_kernel(T* out, DT idx_dt, const void* idx, int64_t k, const T* upd, int64_t outer, int64_t n,
                                   int64_t inner) {
  KILN_GRID_STRIDE(t, outer * k * inner) {
    const int64_t c = t % inner;
    const int64_t aj = t / inner;
    const int64_t j = aj % k, a = aj / k;
    int64_t id = load_index(idx_dt, idx, j);
    if (id < 0) id += n;
    if (id >= 0 && id < n) atomic_add_any(out + (a * n + id) * inner + c, upd[t]);
  }
}

template <class T>
__global__ void one_hot_kernel(DT idx_dt, const void* idx, int64_t k, int64_t depth, T* out) {
  KILN_GRID_STRIDE(j, k) {
    const int64_t id = load_index(idx_dt, idx, j);
    if (id >= 0 && id < depth) out[j * depth + id] = T(1);  // out of range: a zero row, like TF
  }
}

// Each thread draws one Philox block (4 words) and handles 4 consecutive elements.
template <class T>
__global__ void dropout_kernel(const T* x, T* out, T* mask, int64_t n, uint32_t threshold, T scale, uint64_t seed) {
  KILN_GRID_STRIDE(b, (n + 3) / 4) {
    const Philox4 r = philox4x32_10(static_cast<uint32_t>(b), static_cast<uint32_t>(static_cast<uint64_t>(b) >> 32), 0u,
                                    0u, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int64_t i = b * 4 + q;
      if (i < n) {
        const T m = r.v[q] >= threshold ? scale : T(0);
        mask[i] = m;
        out[i] = x[i] * m;
      }
    }
  }
}

}  // namespace

void gather(std::size_t elem_size, const void* params, DT idx_dt, const void* idx, int64_t k, void* out, int64_t outer,
            int64_t n, int64_t inner, cudaStream_t s) {
  const int64_t total = outer * k * inner;
  if (total <= 0) return;
  auto run = [&](auto tag) {
    using W = decltype(tag);
    gather_kernel<W><<<grid_for(total), kThreads, 0, s>>>(static_cast<const W*>(params), idx_dt, idx, k,
                                                          static_cast<W*>(out), outer, n, inner);
  };
  switch (elem_size) {
    case 1: run(uint8_t{}); break;
    case 4: run(uint32_t{}); break;
    default: run(uint64_t{}); break;
  }
}

void scatter_add(DT dt, void* out, DT idx_dt, const void* idx, int64_t k, const void* updates, int64_t outer,
                 int64_t n, int64_t inner, cudaStream_t s) {
  const int64_t total = outer * k * inner;
  if (total <= 0) return;
  dispatch_numeric(dt, [&](auto tag) {
    using T = decltype(tag);
    scatter_add_kernel<T><<<grid_for(total), kThreads, 0, s>>>(static_cast<T*>(out), idx_dt, idx, k,
                                                               static_cast<const T*>(updates), outer, n, inner);
  });
}

void one_hot(DT out_dt, DT idx_dt, const void* idx, int64_t k, int64_t depth, void* out, cudaStream_t s) {
  if (k <= 0 || depth <= 0) return;
  dispatch_all(out_dt, [&](auto tag) {
    using T = decltype(tag);
    one_hot_kernel<T><<<grid_for(k), kThreads, 0, s>>>(idx_dt, idx, k, depth, static_cast<T*>(out));
  });
}

void dropout(DT dt, const void* x, void* out, void* mask, int64_t n, uint32_t threshold, double scale, uint64_t seed,
             cudaStream_t s) {
  if (n <= 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    dropout_kernel<T><<<grid_for((n + 3) / 4), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(out),
                                                                 static_cast<T*>(mask), n, threshold,
                                                                 static_cast<T>(scale), seed);
  });
}

}  // namespace kiln::cuda::k
