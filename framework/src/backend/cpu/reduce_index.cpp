// CPU reductions (sum, max, min, prod, argmax/argmin) and the indexing
// primitives (gather, scatter_add, one_hot).
#include <cmath>
#include <cstring>
#include <limits>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/denormals.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/strided_parallel.h"
#include "backend/cpu/vector_math.h"
#include "backend/strided.h"
#include "core/dispatch.h"

namespace kiln::cpu {

using strided::broadcast_strides;
using strided::strided_for;

using backend::ReduceOp;

namespace {
struct SumOp { template <class T> static T apply(T a, T v) { return a + v; } };
struct ProdOp { template <class T> static T apply(T a, T v) { return a * v; } };
struct MaxOp { template <class T> static T apply(T a, T v) { return (v > a || v != v) ? v : a; } };
struct MinOp { template <class T> static T apply(T a, T v) { return (v < a || v != v) ? v : a; } };

// out[o] = Op(out[o], x[i]) over x's shape; reduced axes have output stride 0.
// The op is a template parameter so the inner loops vectorise. Split over the
// threads when x's first axis longer than 1 is kept: its slices own distinct outputs.
template <class Op, class T>
void reduce_into(const T* p, T* o, const std::vector<int64_t>& xs, const strided::Dims& so, const strided::Dims& sx) {
  std::size_t first = 0;
  while (first < xs.size() && xs[first] == 1) ++first;
  const bool split = first < xs.size() && so[first] != 0;
  strided_for_parallel<2>(xs, {so, sx}, {0, 0}, split, [&](std::array<int64_t, 2> off, int64_t n, std::array<int64_t, 2> st) {
    T* __restrict op_ = o + off[0];
    const T* __restrict xp = p + off[1];
    if (st[0] == 0) {
      T acc = *op_;
      if (st[1] == 1)
        for (int64_t i = 0; i < n; ++i) acc = Op::apply(acc, xp[i]);
      else
        for (int64_t i = 0; i < n; ++i) acc = Op::apply(acc, xp[i * st[1]]);
      *op_ = acc;
    } else if (st[0] == 1 && st[1] == 1) {
      for (int64_t i = 0; i < n; ++i) op_[i] = Op::apply(op_[i], xp[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) op_[i * st[0]] = Op::apply(op_[i * st[0]], xp[i * st[1]]);
    }
  });
}

// Reductions over one run of adjacent axes of a contiguous tensor, seen as
// [lead, mid, trail] reduced over mid: rows (trail 1), columns (lead 1) and
// the middle (RepeatVector's gradient). Split over the threads, and
// vectorized: a row folds into 16 independent lanes (simd::fold_lanes), so the
// loop needs no reassociation, and the order depends only on the row length,
// never on the thread count, so results stay deterministic.
template <class Op, class T>
T reduce_row(const T* x, int64_t n, T init) {
  return simd::fold_lanes(x, n, init, [](T a, T v) { return Op::apply(a, v); });
}

// Returns false when the reduced axes are not one adjacent run.
template <class Op, class T>
bool reduce_split(const T* p, T* o, const std::vector<int64_t>& xs, const std::vector<int64_t>& os, T init) {
  std::size_t d = 0;
  int64_t lead = 1, mid = 1, trail = 1;
  for (; d < xs.size() && os[d] == xs[d]; ++d) lead *= xs[d];
  for (; d < xs.size() && os[d] == 1; ++d) mid *= xs[d];
  for (; d < xs.size(); ++d) {
    if (os[d] != xs[d]) return false;
    trail *= xs[d];
  }
  // Output columns [c0, c1) of block a, the reduction of x's [mid, trail] block.
  auto block = [&](int64_t a, int64_t c0, int64_t c1) {
    const T* x = p + a * mid * trail;
    T* __restrict out = o + a * trail;
    if (trail == 1) {
      out[0] = reduce_row<Op>(x, mid, init);
      return;
    }
    for (int64_t c = c0; c < c1; ++c) out[c] = init;
    for (int64_t m = 0; m < mid; ++m) {
      const T* __restrict row = x + m * trail;
      for (int64_t c = c0; c < c1; ++c) out[c] = Op::apply(out[c], row[c]);
    }
  };
  constexpr int64_t kGrain = 1 << 14;
  if (lead >= 2 || trail == 1) {
    parallel_for(
        lead, [&](int64_t a0, int64_t a1) {
          for (int64_t a = a0; a < a1; ++a) block(a, 0, trail);
        },
        std::max<int64_t>(1, kGrain / std::max<int64_t>(mid * trail, 1)));
  } else {
    parallel_for(trail, [&](int64_t c0, int64_t c1) { block(0, c0, c1); }, std::max<int64_t>(8, kGrain / std::max<int64_t>(mid, 1)));
  }
  return true;
}
}  // namespace

void CpuBackend::reduce(ReduceOp op, const Tensor& x, Tensor& out) {
  FlushDenormals flush;
  const auto& xs = x.shape().dims();
  const auto so = broadcast_strides<strided::Dims>(out.shape().dims(), xs);  // reduced axes get stride 0
  const auto sx = strided::contiguous_dims(xs);
  dispatch_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {  // the op rejects reductions of bool
      T init = op == ReduceOp::sum ? T(0)
               : op == ReduceOp::prod ? T(1)
               : op == ReduceOp::max ? std::numeric_limits<T>::lowest()
                                     : std::numeric_limits<T>::max();
      if constexpr (std::is_floating_point_v<T>) {
        if (op == ReduceOp::max) init = -std::numeric_limits<T>::infinity();
        if (op == ReduceOp::min) init = std::numeric_limits<T>::infinity();
      }
      T* o = static_cast<T*>(out.raw_data());
      const T* p = static_cast<const T*>(x.raw_data());
      if (x.size() > 0 && out.shape().rank() == x.shape().rank()) {
        const auto& os = out.shape().dims();
        bool done = false;
        switch (op) {
          case ReduceOp::sum: done = reduce_split<SumOp>(p, o, xs, os, init); break;
          case ReduceOp::max: done = reduce_split<MaxOp>(p, o, xs, os, init); break;
          case ReduceOp::min: done = reduce_split<MinOp>(p, o, xs, os, init); break;
          case ReduceOp::prod: break;
        }
        if (done) return;
      }
      std::fill(o, o + out.size(), init);
      switch (op) {
        case ReduceOp::sum: reduce_into<SumOp>(p, o, xs, so, sx); break;
        case ReduceOp::prod: reduce_into<ProdOp>(p, o, xs, so, sx); break;
        case ReduceOp::max: reduce_into<MaxOp>(p, o, xs, so, sx); break;
        case ReduceOp::min: reduce_into<MinOp>(p, o, xs, so, sx); break;
      }
    }
  });
}

void CpuBackend::arg_reduce(bool is_max, const Tensor& x, int axis, Tensor& out) {
  FlushDenormals flush;
  const auto& d = x.shape().dims();
  int64_t outer = 1, inner = 1, n = d[axis];
  for (int i = 0; i < axis; ++i) outer *= d[i];
  for (std::size_t i = axis + 1; i < d.size(); ++i) inner *= d[i];
  int64_t* o = host_ptr<int64_t>(out);
  dispatch_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = static_cast<const T*>(x.raw_data());
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t c = 0; c < inner; ++c) {
        const T* base = p + a * n * inner + c;
        int64_t best = 0;
        T bv = base[0];
        for (int64_t i = 1; i < n; ++i) {
          T v = base[i * inner];
          if (is_max ? v > bv : v < bv) { bv = v; best = i; }
        }
        o[a * inner + c] = best;
      }
  });
}

namespace {
template <class F>
void for_each_index(const Tensor& indices, F f) {
  const int64_t n = indices.size();
  if (indices.dtype() == DType::int64) {
    const int64_t* p = host_ptr<int64_t>(indices);
    for (int64_t i = 0; i < n; ++i) f(i, p[i]);
  } else if (indices.dtype() == DType::int32) {
    const int32_t* p = host_ptr<int32_t>(indices);
    for (int64_t i = 0; i < n; ++i) f(i, static_cast<int64_t>(p[i]));
  } else if (indices.dtype() == DType::uint8) {
    const uint8_t* p = host_ptr<uint8_t>(indices);
    for (int64_t i = 0; i < n; ++i) f(i, static_cast<int64_t>(p[i]));
  }
}
}  // namespace

void CpuBackend::gather(const Tensor& params, const Tensor& indices, int axis, Tensor& out) {
  FlushDenormals flush;
  const auto& d = params.shape().dims();
  int64_t outer = 1, inner = 1, n = d[axis];
  for (int i = 0; i < axis; ++i) outer *= d[i];
  for (std::size_t i = axis + 1; i < d.size(); ++i) inner *= d[i];
  const int64_t k = indices.size();
  const std::size_t es = dtype_size(params.dtype());
  const char* src = static_cast<const char*>(params.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  for_each_index(indices, [&](int64_t j, int64_t idx) {
    if (idx < 0) idx += n;
    if (idx < 0 || idx >= n)
      throw IndexError("gather: index " + std::to_string(idx) + " is out of range [0, " + std::to_string(n) +
                       ") for axis " + std::to_string(axis) + " of params with shape " + params.shape().to_string());
    for (int64_t a = 0; a < outer; ++a)
      copy_elements(dst + ((a * k + j) * inner) * es, src + ((a * n + idx) * inner) * es, static_cast<std::size_t>(inner),
                    params.dtype());
  });
}

void CpuBackend::scatter_add(Tensor& out, const Tensor& indices, const Tensor& updates, int axis) {
  FlushDenormals flush;
  const auto& d = out.shape().dims();
  int64_t outer = 1, inner = 1, n = d[axis];
  for (int i = 0; i < axis; ++i) outer *= d[i];
  for (std::size_t i = axis + 1; i < d.size(); ++i) inner *= d[i];
  const int64_t k = indices.size();
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      T* o = static_cast<T*>(out.raw_data());
      const T* u = static_cast<const T*>(updates.raw_data());
      for_each_index(indices, [&](int64_t j, int64_t idx) {
        if (idx < 0) idx += n;
        for (int64_t a = 0; a < outer; ++a)
          for (int64_t c = 0; c < inner; ++c) o[(a * n + idx) * inner + c] += u[(a * k + j) * inner + c];
      });
    }
  });
}

void CpuBackend::one_hot(const Tensor& indices, int64_t depth, Tensor& out) {
  FlushDenormals flush;
  fill(out, 0.0);
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = static_cast<T*>(out.raw_data());
    for_each_index(indices, [&](int64_t j, int64_t idx) {
      if (idx >= 0 && idx < depth) o[j * depth + idx] = T(1);  // out-of-range gives a zero row, like TF
    });
  });
}

}  // namespace kiln::cpu
