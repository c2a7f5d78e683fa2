// The per-geometry race between cuDNN and im2col + GEMM (conv_race.h).
#include "backend/cuda/conv_race.h"

#include <mutex>

#include "backend/cuda/cuda_util.h"

namespace kiln::cuda {

float time_on_stream(DeviceContext& ctx, const std::function<void()>& f) {
  cudaEvent_t start = nullptr, stop = nullptr;
  KILN_CUDA_CHECK(cudaEventCreate(&start));
  KILN_CUDA_CHECK(cudaEventCreate(&stop));
  float ms = 0;
  try {
    KILN_CUDA_CHECK(cudaEventRecord(start, ctx.stream()));
    f();
    KILN_CUDA_CHECK(cudaEventRecord(stop, ctx.stream()));
    KILN_CUDA_CHECK(cudaEventSynchronize(stop));
    KILN_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms;
}

void run_faster_conv(DeviceContext& ctx, const std::vector<int64_t>& key, const std::function<bool()>& cudnn,
                     const std::function<void()>& gemm) {
  int decided = -1;  // -1 unknown, 0 cuDNN, 1 GEMM
  {
    std::lock_guard<std::mutex> lock(ctx.lib_mu);
    if (auto it = ctx.conv_gemm_wins.find(key); it != ctx.conv_gemm_wins.end()) decided = it->second ? 1 : 0;
  }
  const auto remember = [&](bool gemm_wins) {
    std::lock_guard<std::mutex> lock(ctx.lib_mu);
    ctx.conv_gemm_wins[key] = gemm_wins;
  };
  if (decided == 1) return gemm();
  if (decided == 0 || !cudnn_benchmark_enabled() || t_capturing == &ctx) {
    if (!cudnn()) gemm();
    return;
  }
  // The first run also makes cuDNN search its algorithms; the timed runs come after.
  if (!cudnn()) {
    remember(true);
    return gemm();
  }
  float gemm_ms = -1;
  try {
    gemm_ms = time_on_stream(ctx, gemm);
  } catch (const RuntimeError&) {  // GEMM's scratch may not fit where cuDNN's did
  }
  const float cudnn_ms = time_on_stream(ctx, [&] { cudnn(); });  // last: its output stays
  remember(gemm_ms >= 0 && gemm_ms < cudnn_ms);
}

}  // namespace kiln::cuda
