// A chain of element-wise ops in one pass over blocks of elements: each step
// runs over a block that is still in L1 when the next step reads it, and the
// whole chain costs one dispatch instead of one per op. The formulas are those
// of the single-op kernels (elementwise.cpp), so a fused chain gives the same bits.
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/denormals.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/reference.h"
#include "backend/cpu/wrapping.h"
#include "core/dispatch.h"

namespace kiln::cpu {

using backend::BinaryOp;
using backend::ElementwiseProgram;
using backend::UnaryOp;

namespace {

constexpr int64_t kBlock = 256;

template <class T>
bool fusible_unary(UnaryOp op) {
  switch (op) {
    case UnaryOp::neg: case UnaryOp::abs: case UnaryOp::square: case UnaryOp::relu: return true;
    case UnaryOp::exp: case UnaryOp::log: case UnaryOp::log1p: case UnaryOp::expm1: case UnaryOp::sqrt:
    case UnaryOp::rsqrt: case UnaryOp::sin: case UnaryOp::cos: case UnaryOp::tanh: case UnaryOp::sigmoid:
    case UnaryOp::softplus: case UnaryOp::floor: return std::is_floating_point_v<T>;
    default: return false;
  }
}

template <class T>
bool fusible_binary(BinaryOp op) {
  switch (op) {
    case BinaryOp::add: case BinaryOp::sub: case BinaryOp::mul: case BinaryOp::maximum: case BinaryOp::minimum:
    case BinaryOp::relu_grad: return true;
    case BinaryOp::div: case BinaryOp::pow: return std::is_floating_point_v<T>;
    default: return false;
  }
}

template <class T>
void unary_block(UnaryOp op, const T* x, T* o, int64_t n) {
  switch (op) {
    case UnaryOp::neg: for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(-x[i]); break;
    case UnaryOp::abs:
      if constexpr (std::is_floating_point_v<T>) for (int64_t i = 0; i < n; ++i) o[i] = std::abs(x[i]);
      else for (int64_t i = 0; i < n; ++i) o[i] = x[i] < 0 ? static_cast<T>(-x[i]) : x[i];
      break;
    case UnaryOp::square: for (int64_t i = 0; i < n; ++i) o[i] = static_cast<T>(x[i] * x[i]); break;
    case UnaryOp::relu:  // NaN fails every comparison, so "<= 0" lets it through, as the single-op kernel does
      for (int64_t i = 0; i < n; ++i) o[i] = x[i] <= T(0) ? T(0) : x[i];
      break;
    default:
      if constexpr (std::is_same_v<T, float>) {
        if (unary_vectorized(op, x, o, n)) return;
      }
      if constexpr (std::is_floating_point_v<T>) {
        switch (op) {
          case UnaryOp::exp: for (int64_t i = 0; i < n; ++i) o[i] = std::exp(x[i]); break;
          case UnaryOp::log: for (int64_t i = 0; i < n; ++i) o[i] = std::log(x[i]); break;
          case UnaryOp::log1p: for (int64_t i = 0; i < n; ++i) o[i] = std::log1p(x[i]); break;
          case UnaryOp::expm1: for (int64_t i = 0; i < n; ++i) o[i] = std::expm1(x[i]); break;
          case UnaryOp::sqrt: for (int64_t i = 0; i < n; ++i) o[i] = std::sqrt(x[i]); break;
          case UnaryOp::rsqrt: for (int64_t i = 0; i < n; ++i) o[i] = T(1) / std::sqrt(x[i]); break;
          case UnaryOp::sin: for (int64_t i = 0; i < n; ++i) o[i] = std::sin(x[i]); break;
          case UnaryOp::cos: for (int64_t i = 0; i < n; ++i) o[i] = std::cos(x[i]); break;
          case UnaryOp::tanh: for (int64_t i = 0; i < n; ++i) o[i] = std::tanh(x[i]); break;
          case UnaryOp::floor: for (int64_t i = 0; i < n; ++i) o[i] = std::floor(x[i]); break;
          case UnaryOp::sigmoid:
            for (int64_t i = 0; i < n; ++i) {
              const T v = x[i];
              if (v >= 0) o[i] = T(1) / (T(1) + std::exp(-v));
              else { const T e = std::exp(v); o[i] = e / (T(1) + e); }
            }
            break;
          case UnaryOp::softplus:
            for (int64_t i = 0; i < n; ++i) o[i] = std::max(x[i], T(0)) + std::log1p(std::exp(-std::abs(x[i])));
            break;
          default: break;
        }
      }
  }
}

/// o = f(a, b) over a block; a one-element operand (stride 0) is broadcast.
template <class T, class F>
void binary_block(const T* a, bool step_a, const T* b, bool step_b, T* o, int64_t n, F f) {
  if (step_a && step_b) {
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
  } else if (step_a) {
    const T bv = *b;
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], bv);
  } else if (step_b) {
    const T av = *a;
    for (int64_t i = 0; i < n; ++i) o[i] = f(av, b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = f(*a, *b);
  }
}

template <class T>
void binary_block(BinaryOp op, const T* a, bool sa, const T* b, bool sb, T* o, int64_t n) {
  switch (op) {
    case BinaryOp::add: return binary_block(a, sa, b, sb, o, n, [](T x, T y) { return wrap_add(x, y); });
    case BinaryOp::sub: return binary_block(a, sa, b, sb, o, n, [](T x, T y) { return wrap_sub(x, y); });
    case BinaryOp::mul: return binary_block(a, sa, b, sb, o, n, [](T x, T y) { return wrap_mul(x, y); });
    case BinaryOp::maximum: return binary_block(a, sa, b, sb, o, n, [](T x, T y) { return x >= y || x != x ? x : y; });
    case BinaryOp::minimum: return binary_block(a, sa, b, sb, o, n, [](T x, T y) { return x <= y || x != x ? x : y; });
    case BinaryOp::relu_grad: return binary_block(a, sa, b, sb, o, n, [](T x, T dy) { return x > T(0) ? dy : T(0); });
    default: break;
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (op == BinaryOp::div) return binary_block(a, sa, b, sb, o, n, [](T x, T y) { return x / y; });
    if (op == BinaryOp::pow) return binary_block(a, sa, b, sb, o, n, [](T x, T y) { return static_cast<T>(std::pow(x, y)); });
  }
}

template <class T>
void run_program(const ElementwiseProgram& p) {
  // Inline for the usual program sizes, so a replayed chain does not allocate.
  constexpr std::size_t kInline = 32;
  std::array<T*, kInline> ptr_inline;
  std::array<char, kInline> broadcast_inline;
  std::vector<T*> ptr_heap;
  std::vector<char> broadcast_heap;
  const bool inline_fits = p.buffers.size() <= kInline;
  if (!inline_fits) {
    ptr_heap.resize(p.buffers.size());
    broadcast_heap.resize(p.buffers.size());
  }
  T** ptr = inline_fits ? ptr_inline.data() : ptr_heap.data();
  char* broadcast = inline_fits ? broadcast_inline.data() : broadcast_heap.data();
  for (std::size_t k = 0; k < p.buffers.size(); ++k) {
    Tensor t = p.buffers[k];  // a handle: the program's buffers are written through it
    ptr[k] = static_cast<T*>(t.raw_data());
    broadcast[k] = t.size() == 1 && p.n > 1;
  }
  auto range = [&](int64_t i0, int64_t i1) {
    for (int64_t b0 = i0; b0 < i1; b0 += kBlock) {
      const int64_t m = std::min(kBlock, i1 - b0);
      auto at = [&](int k) { return broadcast[k] ? ptr[k] : ptr[k] + b0; };
      for (const auto& s : p.steps) {
        if (s.unary >= 0) unary_block<T>(static_cast<UnaryOp>(s.unary), at(s.a), at(s.out), m);
        else binary_block<T>(static_cast<BinaryOp>(s.binary), at(s.a), !broadcast[s.a], at(s.b), !broadcast[s.b], at(s.out), m);
      }
    }
  };
  // Large chains (optimizer maths, gradient masks) are memory-bound: a second core nearly doubles the bandwidth.
  if (p.n >= (int64_t(1) << 16)) parallel_for(p.n, range, int64_t(1) << 14);
  else range(0, p.n);
}

}  // namespace

bool CpuBackend::can_fuse(DType dtype, int unary, int binary) const {
  bool ok = false;
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> ||
                  std::is_same_v<T, int64_t>)
      ok = unary >= 0 ? fusible_unary<T>(static_cast<UnaryOp>(unary)) : fusible_binary<T>(static_cast<BinaryOp>(binary));
  });
  return ok;
}

bool CpuBackend::fused_elementwise(const ElementwiseProgram& p) {
  FlushDenormals flush;
  // The reference loops are the single-op kernels: run the chain op by op.
  if (reference_kernels()) return false;
  bool done = false;
  dispatch_dtype(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> ||
                  std::is_same_v<T, int64_t>) {
      run_program<T>(p);
      done = true;
    }
  });
  return done;
}

}  // namespace kiln::cpu
