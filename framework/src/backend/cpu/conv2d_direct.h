#pragma once
// Private: the CPU's direct convolution row kernel, shared by conv2d and the
// convolution fused with the max pool that follows it.
#include <cstdint>
#include <functional>

#include "backend/backend.h"

namespace kiln::cpu {

/// Whether conv2d_bias runs the direct row kernel for these parameters (float,
/// a small patch, c_out a multiple of 16, neither oneDNN nor the reference loops).
bool direct_rows_apply(const backend::Conv2DParams& p, DType dtype);

/// Output rows [r0, r1) of the convolution (row = n·oh + oy), plus bias and
/// relu when given, written to `out` from row r0 on.
void conv_direct_rows_f32(const float* x, const float* w, const float* bias, bool relu, const backend::Conv2DParams& p,
                          float* out, int64_t r0, int64_t r1);

/// Whether conv_bias_backward_filter_9 applies (float, one input channel under a 3×3 kernel, c_out a multiple of 8).
bool direct_filter_9_applies(const backend::Conv2DParams& p, DType dtype);

/// The kernel and bias gradients over images [n0, n1) into dw (9·c_out) and db (c_out), with
/// `dy_of(n)` giving image n's output gradient (oh·ow·c_out values, read before the next call).
void conv_bias_backward_filter_9(const float* x, const std::function<const float*(int64_t)>& dy_of,
                                 const backend::Conv2DParams& p, float* dw, float* db, int64_t n0, int64_t n1);

/// The 2×2 stride-2 valid max pool of images [n0, n1), as max_pool2d computes it.
bool is_pool_2x2(const backend::Pool2DParams& p);
void max_pool_2x2_f32(const float* x, const backend::Pool2DParams& p, float* out, int32_t* argmax, int64_t n0,
                      int64_t n1);
/// Its gradient for image n alone, into dx_n (h·w·c values), times `scale` (same shape as dy) when not null.
void max_pool_2x2_backward_image_f32(const float* dy, const float* scale, const int32_t* argmax,
                                     const backend::Pool2DParams& p, int64_t n, float* dx_n);

}  // namespace kiln::cpu
