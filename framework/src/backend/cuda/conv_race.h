#pragma once
// Private (host C++, CUDA builds only): the convolution path per geometry.
// cuDNN's search ranks only cuDNN's own algorithms, and for float32 NHWC
// without TF32 the legacy API can hold nothing better than slow kernels: the
// backward-data pass of a ResNet-style 3x3, 64-channel convolution at batch
// 128 on 32x32 took 7 ms per call on an H200 in cuDNN's direct kernel, where
// im2col + cuBLAS takes a fraction of that. So the first call of a geometry,
// when cuDNN benchmarks (cudnn_benchmark_enabled) and nothing is being
// captured, times both paths and every later call takes the faster one.
#include <functional>
#include <vector>

#include "backend/cuda/cuda_backend.h"

namespace kiln::cuda {

/// Milliseconds of device work `f` enqueues on ctx's stream; waits for it.
float time_on_stream(DeviceContext& ctx, const std::function<void()>& f);

/// Runs one convolution direction by cuDNN or by GEMM, whichever won this
/// geometry's race (`key` names it: direction and shape). `cudnn` returns
/// false when cuDNN declines the geometry; GEMM then runs, always. Both write
/// the whole output, so the race's last run leaves a correct result.
void run_faster_conv(DeviceContext& ctx, const std::vector<int64_t>& key, const std::function<bool()>& cudnn,
                     const std::function<void()>& gemm);

}  // namespace kiln::cuda
