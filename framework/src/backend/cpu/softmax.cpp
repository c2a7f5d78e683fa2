// CPU kernels for softmax, log-softmax and the fused sparse softmax cross-entropy.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

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

}  // namespace kiln::cpu
