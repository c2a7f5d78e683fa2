#pragma once
// Private: 2-D convolutions from explicit backend parameters (padding on each
// side, output size), for the ops built on them: conv2d's own gradients and
// the transposed convolution, which is a convolution's input gradient. No
// gradient is recorded for these, as for conv2d's backward passes.
#include "backend/backend.h"
#include "kiln/core/tensor.h"

namespace kiln::ops {

/// y (n, oh, ow, c_out) = conv2d(x (n, h, w, c_in), w (kh, kw, c_in, c_out)).
Tensor conv2d_with_params(const Tensor& x, const Tensor& w, const backend::Conv2DParams& p);
/// dx (n, h, w, c_in): the input gradient of conv2d_with_params for the output gradient dy.
Tensor conv2d_backward_input(const Tensor& dy, const Tensor& w, const backend::Conv2DParams& p);
/// dw (kh, kw, c_in, c_out): the kernel gradient of conv2d_with_params.
Tensor conv2d_backward_filter(const Tensor& x, const Tensor& dy, const backend::Conv2DParams& p);

}  // namespace kiln::ops
