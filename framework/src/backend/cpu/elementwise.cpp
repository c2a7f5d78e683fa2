// CPU element-wise kernels: strided copies, unary maths (through xtensor),
// broadcasting binary ops and where.
#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "backend/cpu/cpu_backend.h"
#include "backend/int_pow.h"
#include "backend/cpu/denormals.h"
#include "backend/cpu/parallel.h"
#include "backend/cpu/strided_parallel.h"
#include "backend/cpu/transpose_tiles.h"
#include "backend/cpu/vector_math.h"
#include "backend/cpu/wrapping.h"
#include "backend/strided.h"
#include "core/dispatch.h"

namespace kiln::cpu {

using strided::broadcast_strides;
using strided::strided_for;

using backend::BinaryOp;
using backend::UnaryOp;

void CpuBackend::strided_copy(const Tensor& src, int64_t src_off, const std::vector<int64_t>& src_strides,
                              Tensor& dst, int64_t dst_off, const std::vector<int64_t>& dst_strides,
                              const Shape& shape, bool accumulate) {
  FlushDenormals flush;
  if (accumulate && is_half_float(src.dtype()))
    throw TypeError("internal: strided_copy cannot accumulate " + dtype_name(src.dtype()) +
                    " values; the op should compute them in float32");
  dispatch_storage_dtype(src.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* s = static_cast<const T*>(src.raw_data());
    T* d = static_cast<T*>(dst.raw_data());
    if (!accumulate && is_inner_transpose(shape.dims(), src_strides, dst_strides))
      return copy_inner_transpose(s, src_off, src_strides, d, dst_off, dst_strides, shape.dims());
    // Accumulating copies and copies that write one place twice (a zero stride) stay in
    // order on this thread; the rest split over the threads.
    bool distinct_writes = !accumulate;
    for (std::size_t k = 0; k < dst_strides.size(); ++k)
      if (dst_strides[k] == 0 && shape.dims()[k] > 1) distinct_writes = false;
    strided_for_parallel<2>(shape.dims(), {dst_strides, src_strides}, {dst_off, src_off}, distinct_writes,
                   [&](std::array<int64_t, 2> off, int64_t n, std::array<int64_t, 2> st) {
                     T* dp = d + off[0];
                     const T* sp = s + off[1];
                     if (accumulate) {
                       if constexpr (std::is_same_v<T, bool>) {
                         for (int64_t i = 0; i < n; ++i) dp[i * st[0]] = dp[i * st[0]] || sp[i * st[1]];
                       } else if constexpr (std::is_same_v<T, std::string>) {
                         throw TypeError("internal: strided_copy cannot accumulate strings");
                       } else {
                         for (int64_t i = 0; i < n; ++i) dp[i * st[0]] += sp[i * st[1]];
                       }
                     } else if (st[0] == 1 && st[1] == 1) {
                       if constexpr (std::is_trivially_copyable_v<T>) std::memcpy(dp, sp, static_cast<std::size_t>(n) * sizeof(T));
                       else std::copy_n(sp, n, dp);
                     } else if (st[0] == 1 && st[1] == 0) {  // a broadcast value
                       std::fill_n(dp, n, *sp);
                     } else {
                       for (int64_t i = 0; i < n; ++i) dp[i * st[0]] = sp[i * st[1]];
                     }
                   });
  });
}

bool unary_vectorized(UnaryOp op, const float* x, float* o, int64_t n) {
  using namespace simd;
  switch (op) {
    case UnaryOp::exp: map_floats(x, o, n, [](wide v) { return exp_v(v); }); return true;
    case UnaryOp::expm1: map_floats(x, o, n, [](wide v) { return expm1_v(v); }); return true;
    case UnaryOp::tanh: map_floats(x, o, n, [](wide v) { return tanh_v(v); }); return true;
    case UnaryOp::sigmoid: map_floats(x, o, n, [](wide v) { return sigmoid_v(v); }); return true;
    case UnaryOp::erf: map_floats(x, o, n, [](wide v) { return erf_v(v); }); return true;
    default: return false;
  }
}

namespace {
// Below this many elements a second thread costs more than it saves.
constexpr int64_t kElementwiseGrain = 1 << 14;

template <class T>
void unary_float(UnaryOp op, const T* x, T* o, std::size_t n) {
  if constexpr (std::is_same_v<T, float>) {
    if (unary_vectorized(op, x, o, static_cast<int64_t>(n))) return;
  }
  std::array<std::size_t, 1> sh{n};
  auto xa = xt::adapt(x, n, xt::no_ownership(), sh);
  auto oa = xt::adapt(o, n, xt::no_ownership(), sh);
  switch (op) {
    case UnaryOp::neg: oa = -xa; break;
    case UnaryOp::abs: oa = xt::abs(xa); break;
    case UnaryOp::sign: oa = xt::sign(xa); break;
    case UnaryOp::exp: oa = xt::exp(xa); break;
    case UnaryOp::log: oa = xt::log(xa); break;
    case UnaryOp::log1p: oa = xt::log1p(xa); break;
    case UnaryOp::expm1: oa = xt::expm1(xa); break;
    case UnaryOp::sqrt: oa = xt::sqrt(xa); break;
    case UnaryOp::rsqrt: oa = T(1) / xt::sqrt(xa); break;
    case UnaryOp::square: oa = xa * xa; break;
    case UnaryOp::sin: oa = xt::sin(xa); break;
    case UnaryOp::cos: oa = xt::cos(xa); break;
    case UnaryOp::tanh: oa = xt::tanh(xa); break;
    case UnaryOp::erf: oa = xt::erf(xa); break;
    case UnaryOp::floor: oa = xt::floor(xa); break;
    case UnaryOp::round: oa = xt::nearbyint(xa); break;  // banker's rounding, like tf.round
    case UnaryOp::sigmoid:
      for (std::size_t i = 0; i < n; ++i) {
        T v = x[i];
        // Split by sign so exp never overflows.
        if (v >= 0) o[i] = T(1) / (T(1) + std::exp(-v));
        else { T e = std::exp(v); o[i] = e / (T(1) + e); }
      }
      break;
    case UnaryOp::relu:
      // NaN fails every comparison, so testing "<= 0" lets it through as Keras does.
      for (std::size_t i = 0; i < n; ++i) o[i] = x[i] <= T(0) ? T(0) : x[i];
      break;
    case UnaryOp::softplus:
      // log(1 + e^x) = max(x, 0) + log1p(e^-|x|): exact for large |x|.
      for (std::size_t i = 0; i < n; ++i) o[i] = std::max(x[i], T(0)) + std::log1p(std::exp(-std::abs(x[i])));
      break;
    default: break;  // the op checked the dtype rules
  }
}
}  // namespace

void CpuBackend::unary(UnaryOp op, const Tensor& x, Tensor& out) {
  FlushDenormals flush;
  const std::size_t n = static_cast<std::size_t>(x.size());
  if (op == UnaryOp::isnan || op == UnaryOp::isfinite) {
    dispatch_dtype(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* p = static_cast<const T*>(x.raw_data());
      bool* o = host_ptr<bool>(out);
      for (std::size_t i = 0; i < n; ++i) {
        if constexpr (std::is_floating_point_v<T>) o[i] = op == UnaryOp::isnan ? std::isnan(p[i]) : std::isfinite(p[i]);
        else o[i] = op != UnaryOp::isnan;
      }
    });
    return;
  }
  if (op == UnaryOp::logical_not) {
    const bool* p = host_ptr<bool>(x);
    bool* o = host_ptr<bool>(out);
    for (std::size_t i = 0; i < n; ++i) o[i] = !p[i];
    return;
  }
  auto split = [&](auto* xp, auto* op_) {
    parallel_for(
        static_cast<int64_t>(n),
        [&](int64_t b, int64_t e) { unary_float(op, xp + b, op_ + b, static_cast<std::size_t>(e - b)); },
        kElementwiseGrain);
  };
  if (x.dtype() == DType::float32) return split(host_ptr<float>(x), host_ptr<float>(out));
  if (x.dtype() == DType::float64) return split(host_ptr<double>(x), host_ptr<double>(out));
  // Integer tensors: the ops that make sense on integers.
  dispatch_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      const T* p = static_cast<const T*>(x.raw_data());
      T* o = static_cast<T*>(out.raw_data());
      for (std::size_t i = 0; i < n; ++i) {
        switch (op) {
          case UnaryOp::neg: o[i] = static_cast<T>(-p[i]); break;
          case UnaryOp::abs: o[i] = p[i] < 0 ? static_cast<T>(-p[i]) : p[i]; break;
          case UnaryOp::sign: o[i] = static_cast<T>((p[i] > 0) - (p[i] < 0)); break;
          case UnaryOp::square: o[i] = static_cast<T>(p[i] * p[i]); break;
          case UnaryOp::relu: o[i] = p[i] > 0 ? p[i] : T(0); break;
          case UnaryOp::floor:
          case UnaryOp::round: o[i] = p[i]; break;
          default: break;  // the op checked the dtype rules
        }
      }
    }
  });
}

namespace {
template <class T, class R, class F>
void binary_loop(const T* a, const T* b, R* o, const std::vector<int64_t>& shape, const strided::Dims& sa,
                 const strided::Dims& sb, const strided::Dims& so, F f) {
  // Large same-shape operands (gradient masks, optimizer maths): split the flat
  // range over the pool. These passes are memory-bound, and a second core
  // nearly doubles the bandwidth.
  // A scalar operand (x * 0.2, x > 0) counts too: its strides are all zero.
  auto scalar = [](const strided::Dims& st) {
    for (auto v : st)
      if (v != 0) return false;
    return true;
  };
  const bool a_flat = sa == so, b_flat = sb == so;
  if ((a_flat || scalar(sa)) && (b_flat || scalar(sb))) {
    int64_t total = 1;
    for (int64_t d : shape) total *= d;
    if (total >= (int64_t(1) << 16)) {
      parallel_for(
          total,
          [&](int64_t i0, int64_t i1) {
            if (a_flat && b_flat) {
              for (int64_t i = i0; i < i1; ++i) o[i] = f(a[i], b[i]);
            } else if (a_flat) {
              const T bv = *b;
              for (int64_t i = i0; i < i1; ++i) o[i] = f(a[i], bv);
            } else if (b_flat) {
              const T av = *a;
              for (int64_t i = i0; i < i1; ++i) o[i] = f(av, b[i]);
            } else {
              for (int64_t i = i0; i < i1; ++i) o[i] = f(*a, *b);
            }
          },
          int64_t(1) << 15);
      return;
    }
  }
  strided_for_parallel<3>(shape, {so, sa, sb}, {0, 0, 0}, true, [&](std::array<int64_t, 3> off, int64_t n, std::array<int64_t, 3> st) {
    R* op = o + off[0];
    const T* ap = a + off[1];
    const T* bp = b + off[2];
    // Specialised inner loops so the compiler vectorises the common cases.
    if (st[0] == 1 && st[1] == 1 && st[2] == 1) {
      for (int64_t i = 0; i < n; ++i) op[i] = f(ap[i], bp[i]);
    } else if (st[0] == 1 && st[1] == 1 && st[2] == 0) {
      const T bv = *bp;
      for (int64_t i = 0; i < n; ++i) op[i] = f(ap[i], bv);
    } else if (st[0] == 1 && st[1] == 0 && st[2] == 1) {
      const T av = *ap;
      for (int64_t i = 0; i < n; ++i) op[i] = f(av, bp[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) op[i * st[0]] = f(ap[i * st[1]], bp[i * st[2]]);
    }
  });
}
}  // namespace

namespace {
/// x mod y with the divisor's sign, as TF's FloorMod and Python's %: the
/// truncated remainder (exact, from fmod) moved by y when the signs differ.
template <class T>
T floor_mod_of(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = std::fmod(x, y);
    if (r != T(0) && ((r < T(0)) != (y < T(0)))) r += y;
    return r;
  } else {
    if (y == 0) throw ValueError("floor_mod: integer division by zero");
    T r = static_cast<T>(x % y);
    if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
    return r;
  }
}
}  // namespace

void CpuBackend::binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  FlushDenormals flush;
  const auto& os = out.shape().dims();
  const auto sa = broadcast_strides<strided::Dims>(a.shape().dims(), os);
  const auto sb = broadcast_strides<strided::Dims>(b.shape().dims(), os);
  const auto so = strided::contiguous_dims(os);
  const bool cmp = op == BinaryOp::eq || op == BinaryOp::ne || op == BinaryOp::lt || op == BinaryOp::le ||
                   op == BinaryOp::gt || op == BinaryOp::ge || op == BinaryOp::logical_and ||
                   op == BinaryOp::logical_or;
  dispatch_dtype(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* ap = static_cast<const T*>(a.raw_data());
    const T* bp = static_cast<const T*>(b.raw_data());
    if (cmp) {
      bool* o = host_ptr<bool>(out);
      switch (op) {
        case BinaryOp::eq: binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return x == y; }); break;
        case BinaryOp::ne: binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return x != y; }); break;
        case BinaryOp::lt: binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return x < y; }); break;
        case BinaryOp::le: binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return x <= y; }); break;
        case BinaryOp::gt: binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return x > y; }); break;
        case BinaryOp::ge: binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return x >= y; }); break;
        case BinaryOp::logical_and: binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return x && y; }); break;
        case BinaryOp::logical_or: binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return x || y; }); break;
        default: break;
      }
      return;
    }
    if constexpr (!std::is_same_v<T, bool>) {  // the op rejects arithmetic on bool
      T* o = static_cast<T*>(out.raw_data());
      switch (op) {
        case BinaryOp::add: binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return wrap_add(x, y); }); break;
        case BinaryOp::sub: binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return wrap_sub(x, y); }); break;
        case BinaryOp::mul: binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return wrap_mul(x, y); }); break;
        case BinaryOp::div:
          if constexpr (std::is_floating_point_v<T>)
            binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return x / y; });
          else  // integer division floors, like Python's //
            binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) {
              if (y == 0) throw ValueError("divide: integer division by zero");
              T q = static_cast<T>(x / y);
              if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
              return q;
            });
          break;
        case BinaryOp::pow:
          if constexpr (std::is_floating_point_v<T>)
            binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return static_cast<T>(std::pow(x, y)); });
          else
            binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return backend::int_pow(x, y); });
          break;
        case BinaryOp::maximum:
          binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return x >= y || x != x ? x : y; });
          break;
        case BinaryOp::minimum:
          binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return x <= y || x != x ? x : y; });
          break;
        case BinaryOp::relu_grad:  // a = forward input x, b = dy
          binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T dy) { return x > T(0) ? dy : T(0); });
          break;
        case BinaryOp::floor_mod: binary_loop(ap, bp, o, os, sa, sb, so, [](T x, T y) { return floor_mod_of(x, y); }); break;
        case BinaryOp::atan2:
          if constexpr (std::is_floating_point_v<T>)
            binary_loop(ap, bp, o, os, sa, sb, so, [](T y, T x) { return static_cast<T>(std::atan2(y, x)); });
          break;
        default: break;
      }
    }
  });
}

void CpuBackend::where(const Tensor& cond, const Tensor& x, const Tensor& y, Tensor& out) {
  FlushDenormals flush;
  const auto& os = out.shape().dims();
  const auto sc = broadcast_strides<strided::Dims>(cond.shape().dims(), os);
  const auto sx = broadcast_strides<strided::Dims>(x.shape().dims(), os);
  const auto sy = broadcast_strides<strided::Dims>(y.shape().dims(), os);
  const auto so = strided::contiguous_dims(os);
  const bool* c = host_ptr<bool>(cond);
  const bool same_shapes = cond.shape() == out.shape() && x.shape() == out.shape() && y.shape() == out.shape();
  dispatch_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* xp = static_cast<const T*>(x.raw_data());
    const T* yp = static_cast<const T*>(y.raw_data());
    T* o = static_cast<T*>(out.raw_data());
    if (same_shapes) {
      // The common case (leaky_relu's where(x > 0, x, a x)): one flat loop the
      // compiler vectorizes, split over the threads.
      parallel_for(
          out.size(),
          [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) o[i] = simd::select_bits(c[i], xp[i], yp[i]);
          },
          kElementwiseGrain);
      return;
    }
    strided_for_parallel<4>(os, {so, sc, sx, sy}, {0, 0, 0, 0}, true, [&](std::array<int64_t, 4> off, int64_t n, std::array<int64_t, 4> st) {
      for (int64_t i = 0; i < n; ++i)
        o[off[0] + i * st[0]] = c[off[1] + i * st[1]] ? xp[off[2] + i * st[2]] : yp[off[3] + i * st[3]];
    });
  });
}

}  // namespace kiln::cpu
