// CPU kernels for softmax, log-softmax, the fused sparse softmax cross-entropy, and
// attention's softmax(q·kᵀ·scale)·v in one pass per block of query rows.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/denormals.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/vector_math.h"
#include "core/dispatch.h"
#include "kiln/core/error.h"

namespace kiln::cpu {

namespace {
// exp(x[i] - m) for a contiguous row, into e: whole vectors for float32.
template <class T>
void shifted_exp(const T* x, T* e, int64_t n, T m) {
  if constexpr (std::is_same_v<T, float>) {
    simd::map_floats(x, e, n, [m](simd::wide v) { return simd::exp_v(v - m); });
  } else {
    for (int64_t i = 0; i < n; ++i) e[i] = std::exp(x[i] - m);
  }
}

// One softmax (or log-softmax) over n values `stride` apart; returns the
// log-normalizer log(sum(exp(x))). Each exp is computed once: the output holds
// them until the sum is known.
template <class T>
T softmax_row(const T* x, T* o, int64_t n, int64_t stride, bool log) {
  auto max_of = [](T a, T v) { return std::max(a, v); };
  T m = -std::numeric_limits<T>::infinity();
  if (stride == 1) {
    m = simd::fold_lanes(x, n, m, max_of);
  } else {
    for (int64_t i = 0; i < n; ++i) m = max_of(m, x[i * stride]);
  }
  if (!std::isfinite(m)) m = 0;
  T s = 0;
  if (stride == 1) {
    shifted_exp(x, o, n, m);
    s = simd::fold_lanes(static_cast<const T*>(o), n, T(0), [](T a, T v) { return a + v; });
  } else {
    for (int64_t i = 0; i < n; ++i) s += o[i * stride] = std::exp(x[i * stride] - m);
  }
  const T ls = std::log(s) + m;
  if (log) {
    for (int64_t i = 0; i < n; ++i) o[i * stride] = x[i * stride] - ls;
  } else {
    const T inv = T(1) / s;
    for (int64_t i = 0; i < n; ++i) o[i * stride] *= inv;
  }
  return ls;
}
}  // namespace

void CpuBackend::softmax(const Tensor& x, int axis, bool log, Tensor& out) {
  FlushDenormals flush;
  const auto& d = x.shape().dims();
  int64_t outer = 1, inner = 1, n = d[axis];
  for (int i = 0; i < axis; ++i) outer *= d[i];
  for (std::size_t i = axis + 1; i < d.size(); ++i) inner *= d[i];
  dispatch_float(x.dtype(), "softmax", [&](auto tag) {
    using T = decltype(tag);
    const T* p = static_cast<const T*>(x.raw_data());
    T* o = static_cast<T*>(out.raw_data());
    // Rows are independent: split them over the threads, about 16K values per part at least.
    parallel_for(
        outer * inner,
        [&](int64_t r0, int64_t r1) {
          for (int64_t r = r0; r < r1; ++r) {
            const int64_t a = r / inner, c = r % inner;
            softmax_row(p + a * n * inner + c, o + a * n * inner + c, n, inner, log);
          }
        },
        std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)));
  });
}

void CpuBackend::sparse_xent(const Tensor& labels, const Tensor& logits, Tensor& loss, Tensor& probs) {
  FlushDenormals flush;
  const int64_t C = logits.shape()[-1];
  const int64_t N = logits.size() / std::max<int64_t>(C, 1);
  // Integer labels of any width, read in place.
  const DType label_dtype = labels.dtype();
  const void* raw_labels = labels.raw_data();
  auto label_at = [label_dtype, raw_labels](int64_t i) -> int64_t {
    switch (label_dtype) {
      case DType::int64: return static_cast<const int64_t*>(raw_labels)[i];
      case DType::int32: return static_cast<const int32_t*>(raw_labels)[i];
      default: return static_cast<const uint8_t*>(raw_labels)[i];
    }
  };
  for (int64_t i = 0; i < N; ++i)
    if (label_at(i) < 0 || label_at(i) >= C)
      throw ValueError("sparse_categorical_crossentropy: received a label value of " + std::to_string(label_at(i)) +
                       " which is outside the valid range of [0, " + std::to_string(C) + ") for logits with shape " +
                       logits.shape().to_string());
  dispatch_float(logits.dtype(), "sparse_softmax_cross_entropy_with_logits", [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(logits.raw_data());
    T* l = static_cast<T*>(loss.raw_data());
    T* pr = static_cast<T*>(probs.raw_data());
    parallel_for(
        N,
        [&](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i) {
            const T* row = x + i * C;
            // -log(softmax) from the log-normalizer, not from the probability, which may underflow.
            l[i] = softmax_row(row, pr + i * C, C, 1, false) - row[label_at(i)];
          }
        },
        std::max<int64_t>(1, 16384 / std::max<int64_t>(C, 1)));
  });
}

namespace {

/// Where each (b, n, t, s) of attention's logits reads its keep flag: the mask's strides over the
/// four dimensions, 0 along a broadcast one.
struct MaskIndex {
  const bool* keep = nullptr;
  int64_t b = 0, n = 0, t = 0, s = 0;
  MaskIndex(const Tensor* mask) {
    if (!mask) return;
    keep = static_cast<const bool*>(mask->raw_data());
    const auto& d = mask->shape().dims();
    int64_t strides[4] = {0, 0, 0, 0}, step = 1;
    const int r = static_cast<int>(d.size());
    for (int i = r - 1; i >= 0; --i) {
      strides[4 - r + i] = d[i] == 1 ? 0 : step;
      step *= d[i];
    }
    b = strides[0], n = strides[1], t = strides[2], s = strides[3];
  }
};

/// Rows [t0, t1) of one (batch, head) block: logits into `scores` (rows × S), the mask and the softmax
/// there, then their product with the values, written straight into out's (B, T, N, H) rows.
void attention_rows(const float* q, const float* k, const float* v, float* out, const MaskIndex& mask, int64_t b,
                    int64_t n, int64_t t0, int64_t t1, const backend::AttentionDims& d, float* scores) {
  const int64_t rows = t1 - t0, S = d.keys, H = d.head_dim, Hv = d.value_dim, kv_head = n / (d.heads / d.kv_heads);
  const int64_t q_stride = d.heads * H, k_stride = d.kv_heads * H, v_stride = d.kv_heads * Hv, o_stride = d.heads * Hv;
  const float* qb = q + (b * d.queries + t0) * q_stride + n * H;
  const float* kb = k + b * S * k_stride + kv_head * H;
  const float* vb = v + b * S * v_stride + kv_head * Hv;
  gemm_serial_strided(false, true, rows, S, H, qb, q_stride, kb, k_stride, scores, S, 0.0f);
  const float scale = static_cast<float>(d.scale);
  const float masked = static_cast<float>(-0.7 * static_cast<double>(std::numeric_limits<float>::max()));
  for (int64_t r = 0; r < rows; ++r) {
    float* row = scores + r * S;
    const int64_t t = t0 + r;
    for (int64_t s = 0; s < S; ++s) {
      const float x = row[s] * scale;
      row[s] = !mask.keep || mask.keep[b * mask.b + n * mask.n + t * mask.t + s * mask.s] ? x : masked;
    }
    softmax_row(row, row, S, 1, false);
  }
  gemm_serial_strided(false, false, rows, Hv, S, scores, S, vb, v_stride, out + (b * d.queries + t0) * o_stride + n * Hv,
                      o_stride, 0.0f);
}

}  // namespace

bool CpuBackend::attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask,
                           const backend::AttentionDims& d, Tensor& out) {
  if (q.dtype() != DType::float32) return false;
  FlushDenormals flush;
  const float* qp = host_ptr<float>(q);
  const float* kp = host_ptr<float>(k);
  const float* vp = host_ptr<float>(v);
  float* op = host_ptr<float>(out);
  const MaskIndex index(mask);
  // Blocks of query rows whose logits (rows × S) stay in L2; enough blocks to keep every thread busy.
  const int64_t block = std::clamp<int64_t>(65536 / std::max<int64_t>(d.keys, 1), 1, std::max<int64_t>(d.queries, 1));
  const int64_t per_head = (d.queries + block - 1) / block, units = d.batch * d.heads * per_head;
  const double flops = 2.0 * static_cast<double>(d.batch * d.heads) * d.queries * d.keys * (d.head_dim + d.value_dim);
  parallel_for_parts(units, flops < 4e5 ? 1 : num_threads(), [&](int, int64_t u0, int64_t u1) {
    std::vector<float> scores(static_cast<std::size_t>(block * d.keys));
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t bn = u / per_head, t0 = (u % per_head) * block;
      attention_rows(qp, kp, vp, op, index, bn / d.heads, bn % d.heads, t0, std::min(d.queries, t0 + block), d,
                     scores.data());
    }
  });
  return true;
}

}  // namespace kiln::cpu
