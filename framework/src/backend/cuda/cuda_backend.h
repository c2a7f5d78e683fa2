#pragma once
// Private (CUDA builds only): the CUDA + cuDNN backend. It implements the same
// primitive set as the CPU backend (backend.h), so layers, losses, optimizers
// and gradient rules run unchanged on a GPU.
//
// Execution model: one non-blocking stream per device carries every kernel,
// cuBLAS and cuDNN call and host-to-device copy, in program order. Calls return
// as soon as the work is queued; the host waits only where it reads a value
// (a device-to-host copy: Tensor::to(cpu), item(), to_vector()).
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda/allocator.h"
#include "backend/cuda/cuda_util.h"
#include "backend/cuda/kernel_types.h"

namespace kiln::cuda {

/// A convolution's algorithm choice, cached per geometry and direction.
struct ConvAlgo {
  int algo = 0;
  std::size_t workspace = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

struct DeviceContext;
/// The device whose work this thread is capturing (CudaBackend::begin_capture), or null.
inline thread_local const DeviceContext* t_capturing = nullptr;

/// Per-device state: streams, library handles, allocator, staging ring.
struct DeviceContext {
  explicit DeviceContext(int index);
  int index;
  /// Where this thread's work goes: the capture stream while this thread
  /// captures on this device, so that other threads' work is never recorded
  /// into the capture; otherwise the device's one stream.
  cudaStream_t stream() const { return t_capturing == this ? capture_stream : main_stream; }
  cudaStream_t main_stream = nullptr;
  cudaStream_t capture_stream = nullptr;
  DeviceAllocator& alloc;
  PinnedStaging staging;
  /// The library handles, bound to stream(). The caller holds lib_mu. cuDNN
  /// loads its sub-libraries on creation (hundreds of ms), so its handle is
  /// created on the first convolution.
  cublasHandle_t blas();
  cudnnHandle_t cudnn();
  std::mutex lib_mu;  // cuBLAS / cuDNN handles are not safe to share across threads
  std::map<std::vector<int64_t>, ConvAlgo> conv_algos;
  std::map<std::vector<int64_t>, bool> conv_gemm_wins;  // conv_race.h: per geometry, whether GEMM beat cuDNN

 private:
  cublasHandle_t cublas_ = nullptr;
  cudaStream_t cublas_stream_ = nullptr;
  std::once_flag cudnn_once_;
  cudnnHandle_t cudnn_ = nullptr;
  cudaStream_t cudnn_stream_ = nullptr;
};

/// Scratch device memory for the duration of one call (returned to the cache after).
class Scratch {
 public:
  Scratch(DeviceContext& ctx, std::size_t nbytes) : ctx_(ctx), n_(nbytes), p_(nbytes ? ctx.alloc.allocate(nbytes) : nullptr) {}
  ~Scratch() { ctx_.alloc.release(p_, n_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  void* get() const { return p_; }
  template <class T> T* as() const { return static_cast<T*>(p_); }

 private:
  DeviceContext& ctx_;
  std::size_t n_;
  void* p_;
};

class CudaBackend final : public backend::Backend {
 public:
  explicit CudaBackend(int index);
  Device device() const override { return Device::cuda(index_); }
  std::shared_ptr<Storage> allocate(std::size_t nbytes) override;
  void fill(Tensor& out, double value) override;
  void cast(const Tensor& x, Tensor& out) override;
  void strided_copy(const Tensor& src, int64_t src_off, const std::vector<int64_t>& src_strides, Tensor& dst,
                    int64_t dst_off, const std::vector<int64_t>& dst_strides, const Shape& shape,
                    bool accumulate) override;
  void unary(backend::UnaryOp op, const Tensor& x, Tensor& out) override;
  void binary(backend::BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) override;
  void reduce(backend::ReduceOp op, const Tensor& x, Tensor& out) override;
  void arg_reduce(bool is_max, const Tensor& x, int axis, Tensor& out) override;
  void where(const Tensor& cond, const Tensor& x, const Tensor& y, Tensor& out) override;
  void gather(const Tensor& params, const Tensor& indices, int axis, Tensor& out) override;
  void scatter_add(Tensor& out, const Tensor& indices, const Tensor& updates, int axis) override;
  void one_hot(const Tensor& indices, int64_t depth, Tensor& out) override;
  void matmul(const Tensor& a, const Tensor& b, Tensor& out, bool ta, bool tb) override;
  void softmax(const Tensor& x, int axis, bool log, Tensor& out) override;
  void sparse_xent(const Tensor& labels, const Tensor& logits, Tensor& loss, Tensor& probs) override;
  void abs_max_quantize(const Tensor& x, double value_min, double value_max, double epsilon, Tensor& q,
                        Tensor& scale) override;
  void conv2d(const Tensor& x, const Tensor& w, const backend::Conv2DParams& p, Tensor& out) override;
  void conv2d_backward_input(const Tensor& dy, const Tensor& w, const backend::Conv2DParams& p, Tensor& dx) override;
  void conv2d_backward_filter(const Tensor& x, const Tensor& dy, const backend::Conv2DParams& p, Tensor& dw) override;
  void max_pool2d(const Tensor& x, const backend::Pool2DParams& p, Tensor& out, Tensor& argmax) override;
  void max_pool2d_backward(const Tensor& dy, const Tensor& argmax, const backend::Pool2DParams& p, Tensor& dx) override;
  void avg_pool2d(const Tensor& x, const backend::Pool2DParams& p, Tensor& out) override;
  void avg_pool2d_backward(const Tensor& dy, const backend::Pool2DParams& p, Tensor& dx) override;
  void dropout(const Tensor& x, double rate, uint64_t seed, Tensor& out, Tensor& mask) override;
  void copy_from(const Tensor& src, Tensor& dst) override;
  // Fused kernels (cuda_fused.cpp, cudnn_batch_norm.cpp).
  void bias_add(const Tensor& x, const Tensor& bias, bool relu, Tensor& out) override;
  void conv2d_bias(const Tensor& x, const Tensor& w, const Tensor& bias, bool relu, const backend::Conv2DParams& p,
                   Tensor& out) override;
  bool batch_norm_training(const Tensor& x, const Tensor* gamma, const Tensor* beta, double eps, Tensor& y,
                           Tensor& mean, Tensor& var) override;
  bool batch_norm_training_backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& var,
                                    const Tensor* gamma, double eps, Tensor& dx, Tensor* dgamma,
                                    Tensor* dbeta) override;
  bool batch_norm_inference(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor* gamma,
                            const Tensor* beta, double eps, Tensor& y) override;
  bool adam_update(Tensor& w, Tensor& m, Tensor& v, Tensor* v_hat, const Tensor& g, HostScalar alpha, double one_b1,
                   double one_b2, double eps) override;
  bool sgd_update(Tensor& w, Tensor* m, const Tensor& g, HostScalar lr, double momentum, bool nesterov) override;
  bool rmsprop_update(Tensor& w, Tensor& v, Tensor* mom, Tensor* avg, const Tensor& g, HostScalar lr, double rho,
                      double momentum, double eps) override;
  bool has_fused(Fused kind, double eps) const override;
  bool can_fuse(DType dtype, int unary, int binary) const override;
  bool fused_elementwise(const backend::ElementwiseProgram& program) override;
  // CUDA Graphs (cuda_graph.cpp).
  bool begin_capture() override;
  std::unique_ptr<backend::CapturedWork> end_capture() override;

  DeviceContext& ctx() { return ctx_; }

 private:
  /// Throws a ValueError naming `op` unless every tensor lives on this device:
  /// a host pointer must never reach a kernel.
  void expect_here(const char* op, std::initializer_list<const Tensor*> ts) const;
  /// Row-major C (m, n) = op(A) · op(B) (+ beta·C) through cuBLAS, batched with element strides.
  void gemm(DType dt, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const void* a, int64_t a_step, const void* b,
            int64_t b_step, void* c, int64_t batch, double beta);
  void conv_gemm_forward(const Tensor& x, const Tensor& w, const backend::Conv2DParams& p, Tensor& out);
  void conv_gemm_backward_input(const Tensor& dy, const Tensor& w, const backend::Conv2DParams& p, Tensor& dx);
  void conv_gemm_backward_filter(const Tensor& x, const Tensor& dy, const backend::Conv2DParams& p, Tensor& dw);

  int index_;
  DeviceContext ctx_;
};

/// The backend of device `index` (created on first use), or nullptr when absent.
CudaBackend* backend_at(int index);

/// A tensor viewed as (outer, n, inner) around `axis`.
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
inline AxisSplit split_at(const Shape& s, int axis) {
  AxisSplit r;
  const auto& d = s.dims();
  r.n = d[axis];
  for (int i = 0; i < axis; ++i) r.outer *= d[i];
  for (std::size_t i = axis + 1; i < d.size(); ++i) r.inner *= d[i];
  return r;
}

/// Global switches (public API in kiln/backend/cuda.h).
bool tf32_allowed();
bool cudnn_benchmark_enabled();

}  // namespace kiln::cuda
