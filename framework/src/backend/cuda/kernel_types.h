#pragma once
// Private, std-only: the plain structs and enums passed from the CUDA backend
// (host C++) to the kernels (.cu). Nothing here includes a kiln header, so nvcc
// compiles the kernels without the framework's C++20 headers; the host side
// static_asserts that the enums match backend.h's.
#include <cstdint>

namespace kiln::cuda::k {

/// Same order as kiln::DType. Only fill, cast and copies take f16 and bf16:
/// the ops compute 16-bit floats in float32, so no arithmetic kernel sees them.
enum class DT : int { f32, f64, i32, i64, u8, b8, f16, bf16, i8 };
/// Same order as backend::UnaryOp.
enum class Un : int {
  neg, abs, sign, exp, log, log1p, expm1, sqrt, rsqrt, square, sin, cos, tanh, erf,
  sigmoid, relu, softplus, floor, round, isnan, isfinite, logical_not
};
/// Same order as backend::BinaryOp.
enum class Bin : int {
  add, sub, mul, div, pow, maximum, minimum, eq, ne, lt, le, gt, ge, logical_and, logical_or, relu_grad, floor_mod, atan2
};
/// Same order as backend::ReduceOp.
enum class Red : int { sum, max, min, prod };

inline constexpr int kMaxDims = 8;
inline constexpr int kMaxOperands = 4;

/// Strided iteration over `shape` for up to 4 operands: element (i_0..i_r-1)
/// of operand k lives at Σ_d i_d · stride[k][d]. Built by plan.h, which merges
/// dimensions that are contiguous for every operand (a same-shape add becomes
/// rank 1) and drops size-1 dimensions.
struct Plan {
  int rank = 1;
  int64_t n = 0;  // number of elements
  int64_t shape[kMaxDims] = {};
  int64_t stride[kMaxOperands][kMaxDims] = {};
};

/// A reduction of x to the keepdims output: output element o (row-major over
/// the kept dims) reduces x[Σ kept_i·kept_stride + Σ red_j·red_stride].
/// `rows` is set when the reduced elements of one output are contiguous in x
/// (one reduced dim of stride 1), the fast case of sum/max over the last axis.
struct ReducePlan {
  int kept_rank = 0, red_rank = 0;
  int64_t n_out = 1, n_red = 1;
  int64_t kept_shape[kMaxDims] = {}, kept_stride[kMaxDims] = {};
  int64_t red_shape[kMaxDims] = {}, red_stride[kMaxDims] = {};
  bool rows = false;
};

/// NHWC pooling geometry (mirrors backend::Pool2DParams).
struct PoolDims {
  int64_t n, h, w, c, oh, ow;
  int ph, pw, sh, sw;
  int64_t pt, pl;
};

/// NHWC / HWIO convolution geometry (mirrors backend::Conv2DParams).
struct ConvDims {
  int64_t n, h, w, c_in, kh, kw, c_out, oh, ow;
  int sh, sw, dh, dw;
  int64_t pt, pl;
};

/// A chain of element-wise steps run in one launch (backend::ElementwiseProgram):
/// for every element i, each step reads buf[a][i] (and buf[b][i]), applies its
/// unary or binary op and writes buf[out][i]; a buffer marked scalar has one
/// element, read at index 0. Passed by value as a kernel parameter.
inline constexpr int kMaxFusedBuffers = 24;
inline constexpr int kMaxFusedSteps = 48;
struct FusedStep {
  int8_t unary = -1, binary = -1, a = -1, b = -1, out = -1;
};
struct FusedProgram {
  int64_t n = 0;
  int n_steps = 0;
  void* buf[kMaxFusedBuffers] = {};
  bool scalar[kMaxFusedBuffers] = {};
  FusedStep steps[kMaxFusedSteps] = {};
};

}  // namespace kiln::cuda::k
