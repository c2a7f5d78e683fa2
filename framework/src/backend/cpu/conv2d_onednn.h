#pragma once
// Private: float32 2-D convolutions (NHWC input and output, HWIO kernel)
// through oneDNN's JIT kernels, for builds with oneDNN (cmake/onednn.cmake).
// conv2d.cpp asks takes() first and keeps its own kernels for the rest.
#include "backend/backend.h"

namespace kiln::cpu::onednn {

enum class Pass { forward, backward_input, backward_filter };

/// Whether oneDNN runs this pass of this convolution, under the current
/// ConvLibrary choice. Under `automatic`, false when the plugin cannot load;
/// under `onednn` and `onednn_winograd`, true, and the call then says why it cannot.
bool takes(const backend::Conv2DParams& p, Pass pass);

/// out = conv(x, w) (+ bias) (then relu); bias may be null.
void forward(const float* x, const float* w, const float* bias, bool relu, const backend::Conv2DParams& p, float* out);
/// dx from dy and w.
void backward_input(const float* dy, const float* w, const backend::Conv2DParams& p, float* dx);
/// dw (HWIO) from x and dy.
void backward_filter(const float* x, const float* dy, const backend::Conv2DParams& p, float* dw);

}  // namespace kiln::cpu::onednn
