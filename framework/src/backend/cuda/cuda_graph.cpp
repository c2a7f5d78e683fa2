// CUDA Graphs: a run of a traced function's kernels recorded once by stream
// capture and relaunched as one graph, which removes the host's per-kernel
// launch cost (most of a small model's step on a fast GPU).
//
// The capture records this thread's work only: while it lasts, the thread's
// calls go to the device's capture stream (DeviceContext::stream()), so work
// other threads queue on the device's own stream is neither recorded nor
// delayed. The capture is relaxed, because an operation may allocate scratch
// memory (cudaMalloc) on its first use; the allocator gives every block handed
// out during the capture to the graph until the graph is destroyed.
#include "backend/cuda/cuda_backend.h"

namespace kiln::cuda {

namespace {

class CudaGraphWork final : public backend::CapturedWork {
 public:
  CudaGraphWork(DeviceContext& ctx, cudaGraphExec_t exec, uint64_t owner) : ctx_(ctx), exec_(exec), owner_(owner) {}
  ~CudaGraphWork() override {
    // The blocks go back to the cache once the graph's last queued launch is
    // behind them in stream order, which the cache's reuse already relies on.
    DeviceGuard g(ctx_.index);
    cudaGraphExecDestroy(exec_);
    ctx_.alloc.drop_capture(owner_);
  }
  void launch() override {
    DeviceGuard g(ctx_.index);
    KILN_CUDA_CHECK(cudaGraphLaunch(exec_, ctx_.stream()));
  }

 private:
  DeviceContext& ctx_;
  cudaGraphExec_t exec_;
  uint64_t owner_;
};

}  // namespace

bool CudaBackend::begin_capture() {
  if (t_capturing) return false;  // one capture per thread at a time
  DeviceGuard g(index_);
  ctx_.alloc.begin_capture();
  t_capturing = &ctx_;
  if (cudaStreamBeginCapture(ctx_.capture_stream, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
    (void)cudaGetLastError();
    t_capturing = nullptr;
    ctx_.alloc.drop_capture(ctx_.alloc.end_capture());
    return false;
  }
  return true;
}

std::unique_ptr<backend::CapturedWork> CudaBackend::end_capture() {
  if (t_capturing != &ctx_) return nullptr;
  DeviceGuard g(index_);
  t_capturing = nullptr;
  cudaGraph_t graph = nullptr;
  cudaError_t e = cudaStreamEndCapture(ctx_.capture_stream, &graph);
  const uint64_t owner = ctx_.alloc.end_capture();
  cudaGraphExec_t exec = nullptr;
  if (e == cudaSuccess && graph) e = cudaGraphInstantiate(&exec, graph, 0);
  if (graph) cudaGraphDestroy(graph);
  if (e != cudaSuccess || !exec) {
    (void)cudaGetLastError();  // a failed capture leaves its error behind; the caller runs the work uncaptured
    ctx_.alloc.drop_capture(owner);
    return nullptr;
  }
  return std::make_unique<CudaGraphWork>(ctx_, exec, owner);
}

}  // namespace kiln::cuda
