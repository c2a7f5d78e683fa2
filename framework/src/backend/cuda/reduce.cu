// CUDA kernels: reductions (sum/max/min/prod over any axes), arg max/min,
// softmax and the fused sparse softmax cross-entropy.
//
// Reductions pick one of two kernels from the ReducePlan (plan.h):
//  - rows:    the reduced elements of each output are contiguous (sum over the
//             last axis): one warp per output reads them coalesced.
//  - generic: anything else (e.g. a bias gradient, summing (N, C) over N): one
//             thread per output; adjacent threads read adjacent columns.
// When there are too few outputs to fill the GPU, each output's range is split
// into chunks reduced into `scratch`, then a second pass reduces the chunks.
// Both passes are fixed-order, so results are deterministic run to run.
#include <cmath>
#include <limits>

#include "backend/cuda/common.cuh"
#include "backend/cuda/kernels.h"

namespace kiln::cuda::k {
namespace {

template <class T>
__device__ __forceinline__ T identity(Red op) {
  switch (op) {
    case Red::sum: return T(0);
    case Red::prod: return T(1);
    case Red::max:
      if constexpr (std::is_floating_point_v<T>) return neg_infinity<T>();
      else return std::numeric_limits<T>::lowest();
    default:
      if constexpr (std::is_floating_point_v<T>) return -neg_infinity<T>();
      else return std::numeric_limits<T>::max();
  }
}

/// Same NaN rule as the CPU backend: a NaN wins a max/min.
template <class T>
__device__ __forceinline__ T combine(Red op, T a, T v) {
  switch (op) {
    case Red::sum: return static_cast<T>(a + v);
    case Red::prod: return static_cast<T>(a * v);
    case Red::max: return (v > a || v != v) ? v : a;
    default: return (v < a || v != v) ? v : a;
  }
}

template <class T>
__device__ __forceinline__ T shfl_xor(T v, int lane_mask) {
  if constexpr (sizeof(T) < 4) {
    return static_cast<T>(__shfl_xor_sync(0xffffffffu, static_cast<unsigned>(v), lane_mask));
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return static_cast<int64_t>(__shfl_xor_sync(0xffffffffu, static_cast<long long>(v), lane_mask));
  } else {
    return __shfl_xor_sync(0xffffffffu, v, lane_mask);
  }
}

template <class T>
__device__ __forceinline__ T warp_allreduce(Red op, T v) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) v = combine(op, v, shfl_xor(v, m));
  return v;
}

/// Offset in x of the first element of output o (row-major over kept dims).
__device__ __forceinline__ int64_t kept_offset(const ReducePlan& p, int64_t o) {
  int64_t off = 0;
  for (int d = p.kept_rank - 1; d >= 0; --d) {
    const int64_t q = o / p.kept_shape[d];
    off += (o - q * p.kept_shape[d]) * p.kept_stride[d];
    o = q;
  }
  return off;
}
__device__ __forceinline__ int64_t red_offset(const ReducePlan& p, int64_t j) {
  if (p.red_rank == 1) return j * p.red_stride[0];
  int64_t off = 0;
  for (int d = p.red_rank - 1; d >= 0; --d) {
    const int64_t q = j / p.red_shape[d];
    off += (j - q * p.red_shape[d]) * p.red_stride[d];
    j = q;
  }
  return off;
}

// One warp per (output, chunk); out[o * n_chunks + chunk].
template <class T>
__global__ void reduce_rows_kernel(Red op, const T* x, T* out, const __grid_constant__ ReducePlan p, int64_t n_chunks,
                                   int64_t chunk_len) {
  const int lane = threadIdx.x & 31;
  const int64_t warps_per_grid = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  const int64_t items = p.n_out * n_chunks;
  for (int64_t item = static_cast<int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; item < items;
       item += warps_per_grid) {
    const int64_t o = item / n_chunks, chunk = item - o * n_chunks;
    const T* row = x + kept_offset(p, o);
    const int64_t j0 = chunk * chunk_len;
    const int64_t j1 = j0 + chunk_len < p.n_red ? j0 + chunk_len : p.n_red;
    T acc = identity<T>(op);
    for (int64_t j = j0 + lane; j < j1; j += 32) acc = combine(op, acc, row[j]);
    acc = warp_allreduce(op, acc);
    if (lane == 0) out[item] = acc;
  }
}

// One thread per (output, chunk); out[chunk * n_out + o] so adjacent threads
// (adjacent o) write adjacent addresses.
template <class T>
__global__ void reduce_generic_kernel(Red op, const T* x, T* out, const __grid_constant__ ReducePlan p,
                                      int64_t n_chunks, int64_t chunk_len) {
  KILN_GRID_STRIDE(t, p.n_out * n_chunks) {
    const int64_t chunk = t / p.n_out, o = t - chunk * p.n_out;
    const T* base = x + kept_offset(p, o);
    const int64_t j0 = chunk * chunk_len;
    const int64_t j1 = j0 + chunk_len < p.n_red ? j0 + chunk_len : p.n_red;
    T acc = identity<T>(op);
    for (int64_t j = j0; j < j1; ++j) acc = combine(op, acc, base[red_offset(p, j)]);
    out[t] = acc;
  }
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// How many chunks each output's range is split into (1 = single pass).
int64_t num_chunks(const ReducePlan& p) {
  if (p.n_out == 0 || p.n_red == 0) return 1;
  if (p.rows) {
    if (p.n_out >= 1024 || p.n_red <= 4096) return 1;
    return std::min(ceil_div(p.n_red, 4096), ceil_div(2048, p.n_out));
  }
  if (p.n_out >= 8192 || p.n_red <= 256) return 1;
  return std::min(ceil_div(p.n_red, 256), ceil_div(16384, p.n_out));
}

template <class T>
void launch_reduce(Red op, const T* x, T* out, const ReducePlan& p, int64_t chunks, T* scratch, cudaStream_t s) {
  const int64_t chunk_len = ceil_div(p.n_red, chunks);
  T* dst = chunks > 1 ? scratch : out;
  if (p.rows) {
    const int64_t items = p.n_out * chunks;
    reduce_rows_kernel<T><<<grid_for(items * 32), kThreads, 0, s>>>(op, x, dst, p, chunks, chunk_len);
  } else {
    reduce_generic_kernel<T><<<grid_for(p.n_out * chunks), kThreads, 0, s>>>(op, x, dst, p, chunks, chunk_len);
  }
  if (chunks == 1) return;
  // Second pass over the partial results, in the layout the first pass wrote.
  ReducePlan q;
  q.kept_rank = 1;
  q.red_rank = 1;
  q.n_out = p.n_out;
  q.n_red = chunks;
  q.kept_shape[0] = p.n_out;
  q.red_shape[0] = chunks;
  if (p.rows) {
    q.kept_stride[0] = chunks;
    q.red_stride[0] = 1;
    q.rows = true;
    reduce_rows_kernel<T><<<grid_for(p.n_out * 32), kThreads, 0, s>>>(op, scratch, out, q, 1, chunks);
  } else {
    q.kept_stride[0] = 1;
    q.red_stride[0] = p.n_out;
    reduce_generic_kernel<T><<<grid_for(p.n_out), kThreads, 0, s>>>(op, scratch, out, q, 1, chunks);
  }
}

// ---- arg max / min ----
template <class T>
__global__ void arg_reduce_kernel(bool is_max, const T* x, int64_t* out, int64_t outer, int64_t n, int64_t inner) {
  KILN_GRID_STRIDE(t, outer * inner) {
    const int64_t a = t / inner, c = t - a * inner;
    const T* base = x + a * n * inner + c;
    int64_t best = 0;
    T bv = base[0];
    for (int64_t i = 1; i < n; ++i) {
      const T v = base[i * inner];
      if (is_max ? v > bv : v < bv) {
        bv = v;
        best = i;
      }
    }
    out[t] = best;
  }
}

// ---- softmax ----
template <class T>
__device__ __forceinline__ T dexp(T v) {
  if constexpr (std::is_same_v<T, float>) return expf(v);
  else return exp(v);
}
template <class T>
__device__ __forceinline__ T dlog(T v) {
  if constexpr (std::is_same_v<T, float>) return logf(v);
  else return log(v);
}

/// Block-wide reduction; every thread gets the result. `smem` holds 32 values.
template <class T>
__device__ T block_allreduce(Red op, T v, T* smem) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  v = warp_allreduce(op, v);
  __syncthreads();  // smem may still be read from a previous call
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  v = lane < warps ? smem[lane] : identity<T>(op);
  return warp_allreduce(op, v);
}

// One block per row (inner == 1, the usual softmax over the last axis).
template <class T>
__global__ void softmax_rows_kernel(const T* x, T* out, int64_t rows, int64_t n, bool log_softmax) {
  __shared__ T smem[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * n;
    T* orow = out + r * n;
    T m = neg_infinity<T>();
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) m = xr[i] > m ? xr[i] : m;
    m = block_allreduce(Red::max, m, smem);
    if (!isfinite(m)) m = T(0);
    T sum = T(0);
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) sum += dexp(xr[i] - m);
    sum = block_allreduce(Red::sum, sum, smem);
    if (log_softmax) {
      const T ls = dlog(sum) + m;
      for (int64_t i = threadIdx.x; i < n; i += blockDim.x) orow[i] = xr[i] - ls;
    } else {
      const T inv = T(1) / sum;
      for (int64_t i = threadIdx.x; i < n; i += blockDim.x) orow[i] = dexp(xr[i] - m) * inv;
    }
  }
}

// One block per row: Keras's AbsMaxQuantizer over the last axis (a NaN wins the max, as on the CPU).
__global__ void abs_max_quantize_kernel(const float* x, int8_t* q, float* scale, int64_t rows, int64_t n, float lo,
                                        float hi, float eps) {
  __shared__ float smem[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* xr = x + r * n;
    float m = neg_infinity<float>();
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) m = combine(Red::max, m, fabsf(xr[i]));
    m = block_allreduce(Red::max, m, smem);
    const float s = hi / (m + eps);
    if (threadIdx.x == 0) scale[r] = s;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
      q[r * n + i] = static_cast<int8_t>(static_cast<int>(fminf(fmaxf(nearbyintf(xr[i] * s), lo), hi)));
  }
}

// One thread per (outer, inner) column: softmax over a middle axis.
template <class T>
__global__ void softmax_cols_kernel(const T* x, T* out, int64_t outer, int64_t n, int64_t inner, bool log_softmax) {
  KILN_GRID_STRIDE(t, outer * inner) {
    const int64_t a = t / inner, c = t - a * inner;
    const T* xp = x + a * n * inner + c;
    T* op = out + a * n * inner + c;
    T m = neg_infinity<T>();
    for (int64_t i = 0; i < n; ++i) m = xp[i * inner] > m ? xp[i * inner] : m;
    if (!isfinite(m)) m = T(0);
    T sum = T(0);
    for (int64_t i = 0; i < n; ++i) sum += dexp(xp[i * inner] - m);
    if (log_softmax) {
      const T ls = dlog(sum) + m;
      for (int64_t i = 0; i < n; ++i) op[i * inner] = xp[i * inner] - ls;
    } else {
      const T inv = T(1) / sum;
      for (int64_t i = 0; i < n; ++i) op[i * inner] = dexp(xp[i * inner] - m) * inv;
    }
  }
}

template <class T>
__global__ void sparse_xent_kernel(DT label_dt, const void* labels, const T* logits, T* loss, T* probs, int64_t N,
                                   int64_t C) {
  __shared__ T smem[32];
  for (int64_t r = blockIdx.x; r < N; r += gridDim.x) {
    const T* row = logits + r * C;
    T* prow = probs + r * C;
    const int64_t lab = load_index(label_dt, labels, r);
    T m = neg_infinity<T>();
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) m = row[c] > m ? row[c] : m;
    m = block_allreduce(Red::max, m, smem);
    T sum = T(0);
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) sum += dexp(row[c] - m);
    sum = block_allreduce(Red::sum, sum, smem);
    const bool valid = lab >= 0 && lab < C;
    const T nan = T(NAN);
    const T inv = T(1) / sum;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) prow[c] = valid ? dexp(row[c] - m) * inv : nan;
    if (threadIdx.x == 0) loss[r] = valid ? dlog(sum) + m - row[lab] : nan;
  }
}

unsigned row_threads(int64_t n) {
  unsigned t = 32;
  while (t < 256 && t < n) t *= 2;
  return t;
}
unsigned row_blocks(int64_t rows) { return static_cast<unsigned>(rows < 65535 * 8 ? (rows < 1 ? 1 : rows) : 65535 * 8); }

}  // namespace

int64_t reduce_scratch_elems(const ReducePlan& p) {
  const int64_t c = num_chunks(p);
  return c > 1 ? p.n_out * c : 0;
}

void reduce(Red op, DT dt, const void* x, void* out, const ReducePlan& p, void* scratch, cudaStream_t s) {
  if (p.n_out <= 0) return;
  const int64_t chunks = num_chunks(p);
  dispatch_numeric(dt, [&](auto tag) {
    using T = decltype(tag);
    launch_reduce<T>(op, static_cast<const T*>(x), static_cast<T*>(out), p, chunks, static_cast<T*>(scratch), s);
  });
}

void arg_reduce(bool is_max, DT dt, const void* x, int64_t* out, int64_t outer, int64_t n, int64_t inner,
                cudaStream_t s) {
  if (outer * inner <= 0 || n <= 0) return;
  dispatch_all(dt, [&](auto tag) {
    using T = decltype(tag);
    arg_reduce_kernel<T><<<grid_for(outer * inner), kThreads, 0, s>>>(is_max, static_cast<const T*>(x), out, outer,
                                                                      n, inner);
  });
}

void softmax(DT dt, const void* x, void* out, int64_t outer, int64_t n, int64_t inner, bool log, cudaStream_t s) {
  if (outer * n * inner <= 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    const T* xp = static_cast<const T*>(x);
    T* op = static_cast<T*>(out);
    if (inner == 1) softmax_rows_kernel<T><<<row_blocks(outer), row_threads(n), 0, s>>>(xp, op, outer, n, log);
    else softmax_cols_kernel<T><<<grid_for(outer * inner), kThreads, 0, s>>>(xp, op, outer, n, inner, log);
  });
}

void abs_max_quantize(const float* x, int8_t* q, float* scale, int64_t rows, int64_t n, float lo, float hi, float eps,
                      cudaStream_t s) {
  if (rows <= 0 || n <= 0) return;
  abs_max_quantize_kernel<<<row_blocks(rows), row_threads(n), 0, s>>>(x, q, scale, rows, n, lo, hi, eps);
}

void sparse_xent(DT dt, DT label_dt, const void* labels, const void* logits, void* loss, void* probs, int64_t N,
                 int64_t C, cudaStream_t s) {
  if (N <= 0 || C <= 0) return;
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    sparse_xent_kernel<T><<<row_blocks(N), row_threads(C), 0, s>>>(label_dt, labels, static_cast<const T*>(logits),
                                                                  static_cast<T*>(loss), static_cast<T*>(probs), N, C);
  });
}

}  // namespace kiln::cuda::k
