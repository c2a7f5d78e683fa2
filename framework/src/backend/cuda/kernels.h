#pragma once
// Private: launch functions of Kiln's own CUDA kernels (framework/src/backend/cuda/*.cu).
// Plain pointers and the structs of kernel_types.h only. Every function queues
// work on `s` and returns at once; the caller checks cudaGetLastError().
// Element types are chosen at run time by a DT switch inside each launcher, and
// ops are a uniform switch inside the kernel, which keeps the number of template
// instantiations (and nvcc time on 2-core CI) small.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "backend/cuda/kernel_types.h"

namespace kiln::cuda::k {

// ---- elementwise.cu ----
void fill(DT dt, void* out, int64_t n, double value, cudaStream_t s);
/// out[i] = (D) x[i]; bool output is x != 0.
void cast(DT src, DT dst, const void* x, void* out, int64_t n, cudaStream_t s);
/// Operand 0 = dst, 1 = src. With accumulate, dst (+)= src; `atomic` when the
/// plan maps several source elements to one destination (a zero dst stride).
void strided_copy(DT dt, const void* src, int64_t src_off, void* dst, int64_t dst_off, const Plan& p, bool accumulate,
                  bool atomic, cudaStream_t s);
/// Contiguous x -> out; isnan/isfinite write bool.
void unary(Un op, DT dt, const void* x, void* out, int64_t n, cudaStream_t s);
/// Operand 0 = out (contiguous), 1 = a, 2 = b (broadcast strides). Comparisons
/// and logical ops write bool.
void binary(Bin op, DT dt, const void* a, const void* b, void* out, const Plan& p, cudaStream_t s);
/// Operand 0 = out, 1 = cond (bool), 2 = x, 3 = y.
void where(DT dt, const bool* cond, const void* x, const void* y, void* out, const Plan& p, cudaStream_t s);

// ---- reduce.cu ----
/// `scratch` holds at least reduce_scratch_elems(p) elements of dt for the
/// two-pass split of long reductions (may be null when that is 0).
void reduce(Red op, DT dt, const void* x, void* out, const ReducePlan& p, void* scratch, cudaStream_t s);
int64_t reduce_scratch_elems(const ReducePlan& p);
/// x viewed as (outer, n, inner) -> out int64 (outer, inner): first index of the max/min.
void arg_reduce(bool is_max, DT dt, const void* x, int64_t* out, int64_t outer, int64_t n, int64_t inner,
                cudaStream_t s);
/// x viewed as (outer, n, inner); softmax (or log-softmax) along n.
void softmax(DT dt, const void* x, void* out, int64_t outer, int64_t n, int64_t inner, bool log, cudaStream_t s);
/// Keras's AbsMaxQuantizer over rows of n: scale[r] = hi / (max|row| + eps), q = clip(round(x · scale), lo, hi).
void abs_max_quantize(const float* x, int8_t* q, float* scale, int64_t rows, int64_t n, float lo, float hi, float eps,
                      cudaStream_t s);
/// Rows of logits (N, C): loss[i] = logsumexp(row) - row[label], probs = softmax(row).
/// A label outside [0, C) gives NaN loss and a NaN probs row (as TF on GPU).
void sparse_xent(DT dt, DT label_dt, const void* labels, const void* logits, void* loss, void* probs, int64_t N,
                 int64_t C, cudaStream_t s);

// ---- index.cu ----
/// params (outer, n, inner) gathered at idx (k) -> out (outer, k, inner); elements
/// copied as raw bytes of `elem_size`. An index outside [-n, n) writes zeros (as TF on GPU).
void gather(std::size_t elem_size, const void* params, DT idx_dt, const void* idx, int64_t k, void* out,
            int64_t outer, int64_t n, int64_t inner, cudaStream_t s);
/// out (outer, n, inner) += updates (outer, k, inner) at idx; atomic, out-of-range skipped.
void scatter_add(DT dt, void* out, DT idx_dt, const void* idx, int64_t k, const void* updates, int64_t outer,
                 int64_t n, int64_t inner, cudaStream_t s);
/// out (k, depth) must be zero-filled; sets out[j, idx[j]] = 1 when in range.
void one_hot(DT out_dt, DT idx_dt, const void* idx, int64_t k, int64_t depth, void* out, cudaStream_t s);
/// Inverted dropout with Philox4x32-10 bits (philox.h): keep when bits >= threshold.
void dropout(DT dt, const void* x, void* out, void* mask, int64_t n, uint32_t threshold, double scale, uint64_t seed,
             cudaStream_t s);

// ---- nn.cu ----
void max_pool(DT dt, const void* x, void* out, int32_t* argmax, const PoolDims& p, cudaStream_t s);
/// Gathers into every dx element the dy of the windows whose argmax is it (deterministic, no atomics).
void max_pool_backward(DT dt, const void* dy, const int32_t* argmax, void* dx, const PoolDims& p, cudaStream_t s);
void avg_pool(DT dt, const void* x, void* out, const PoolDims& p, cudaStream_t s);
void avg_pool_backward(DT dt, const void* dy, void* dx, const PoolDims& p, cudaStream_t s);
/// Patch matrix (n·oh·ow, kh·kw·c_in) in HWIO column order, as the CPU backend.
void im2col(DT dt, const void* x, void* col, const ConvDims& p, cudaStream_t s);
/// dx (n, h, w, c_in) = Σ of the patch-matrix entries that read each pixel (gather form).
void col2im(DT dt, const void* col, void* dx, const ConvDims& p, cudaStream_t s);
/// Integer batched matmul (no cuBLAS for integers): out (B, M, N).
void int_matmul(DT dt, const void* a, const void* b, void* out, int64_t B, int64_t M, int64_t N, int64_t K, bool ta,
                bool tb, int64_t a_step, int64_t b_step, cudaStream_t s);

// ---- fused.cu ----
/// Runs a FusedProgram over dt elements (f32, f64, i32, i64).
void fused_elementwise(DT dt, const FusedProgram& p, cudaStream_t s);
/// out = x + bias[i % c] (then relu); out may be x.
void bias_act(DT dt, const void* x, const void* bias, void* out, int64_t n, int64_t c, bool relu, cudaStream_t s);
/// One Adam step in place (Backend::adam_update); vh may be null.
void adam(DT dt, void* w, void* m, void* v, void* vh, const void* g, int64_t n, double alpha, double one_b1,
          double one_b2, double eps, cudaStream_t s);
/// One SGD step in place (Backend::sgd_update); m null without momentum.
void sgd(DT dt, void* w, void* m, const void* g, int64_t n, double lr, double momentum, bool nesterov, cudaStream_t s);
/// One RMSprop step in place (Backend::rmsprop_update); mom and avg may be null.
void rmsprop(DT dt, void* w, void* v, void* mom, void* avg, const void* g, int64_t n, double lr, double rho,
             double momentum, double eps, cudaStream_t s);
/// Inference batch norm over the last axis (c channels): y = (x − mean)·(1/√(var + eps))·gamma + beta, gamma and
/// beta may be null. False (nothing queued) when n needs 64-bit indices.
bool bn_inference(DT dt, const void* x, const void* mean, const void* var, const void* gamma, const void* beta, void* y,
                  int64_t n, int64_t c, double eps, cudaStream_t s);
/// x *= factor, in place.
void scale(DT dt, void* x, int64_t n, double factor, cudaStream_t s);

}  // namespace kiln::cuda::k
