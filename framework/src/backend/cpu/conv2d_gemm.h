#pragma once
// Private: the CPU convolution's im2col + GEMM path, tiled by images. Each
// tile of whole images gathers its patch matrix into the thread's scratch
// (about kTileRows rows of kh·kw·c_in values, so it stays in cache) and runs
// a single-threaded GEMM on it; the tiles are split over Kiln's pool. Memory
// is one tile per thread instead of the whole batch's patch matrix (302 MB for
// a 3x3x64 convolution over 128 images of 32x32), and the gathers run in
// parallel with the GEMMs instead of serially before them.
#include "backend/backend.h"

namespace kiln::cpu {

/// out (N·OH·OW, C_out) = patches · W (K, C_out); then + bias and relu when given.
template <class T>
void conv_gemm_forward(const T* x, const T* w, const T* bias, bool relu, const backend::Conv2DParams& p, T* out);

/// dx (N, H, W, C_in) from dy (N·OH·OW, C_out) and W: per tile dcol = dy·Wᵀ, scattered back.
template <class T>
void conv_gemm_backward_input(const T* dy, const T* w, const backend::Conv2DParams& p, T* dx);

/// dW (K, C_out) = Σ over tiles patchesᵀ · dy, summed per thread, then over threads.
template <class T>
void conv_gemm_backward_filter(const T* x, const T* dy, const backend::Conv2DParams& p, T* dw);

}  // namespace kiln::cpu
