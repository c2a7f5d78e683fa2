// The CUDA backend: device registry, public kiln/backend/cuda.h API, memory, copies,
// and the element-wise / reduction / indexing primitives (kernels in *.cu).
#include "backend/cuda/cuda_backend.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "backend/strided.h"
#include "backend/cuda/kernels.h"
#include "backend/cuda/plan.h"
#include "backend/cuda/plugin_api.h"
#include "kiln/backend/cuda.h"

namespace kiln::cuda {

using backend::BinaryOp;
using backend::ReduceOp;
using backend::UnaryOp;

// The kernels mirror backend.h's enums by value.
static_assert(static_cast<int>(k::DT::b8) == static_cast<int>(DType::bool_));
static_assert(static_cast<int>(k::DT::u8) == static_cast<int>(DType::uint8));
static_assert(static_cast<int>(k::DT::f16) == static_cast<int>(DType::float16));
static_assert(static_cast<int>(k::DT::bf16) == static_cast<int>(DType::bfloat16));
static_assert(static_cast<int>(k::DT::i8) == static_cast<int>(DType::int8));
static_assert(static_cast<int>(k::Un::logical_not) == static_cast<int>(UnaryOp::logical_not));
static_assert(static_cast<int>(k::Un::sigmoid) == static_cast<int>(UnaryOp::sigmoid));
static_assert(static_cast<int>(k::Bin::relu_grad) == static_cast<int>(BinaryOp::relu_grad));
static_assert(static_cast<int>(k::Bin::floor_mod) == static_cast<int>(BinaryOp::floor_mod));
static_assert(static_cast<int>(k::Bin::atan2) == static_cast<int>(BinaryOp::atan2));
static_assert(static_cast<int>(k::Bin::eq) == static_cast<int>(BinaryOp::eq));
static_assert(static_cast<int>(k::Red::prod) == static_cast<int>(ReduceOp::prod));

// ---------------------------------------------------------------- errors

void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
  (void)cudaGetLastError();
  throw RuntimeError(std::string("CUDA error: ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ") in " +
                     what + " at " + file + ":" + std::to_string(line));
}
void throw_cublas(cublasStatus_t e, const char* what, const char* file, int line) {
  throw RuntimeError(std::string("cuBLAS error: ") + cublasGetStatusName(e) + " (" + cublasGetStatusString(e) +
                     ") in " + what + " at " + file + ":" + std::to_string(line));
}
void throw_cudnn(cudnnStatus_t e, const char* what, const char* file, int line) {
  throw RuntimeError(std::string("cuDNN error: ") + cudnnGetErrorString(e) + " in " + what + " at " + file + ":" +
                     std::to_string(line));
}

DeviceGuard::DeviceGuard(int device) : cur_(device) {
  KILN_CUDA_CHECK(cudaGetDevice(&prev_));
  if (prev_ != cur_) KILN_CUDA_CHECK(cudaSetDevice(cur_));
}
DeviceGuard::~DeviceGuard() {
  if (prev_ != cur_) cudaSetDevice(prev_);
}

// ---------------------------------------------------------------- switches

// The switches live in libkiln (kiln/backend/cuda.h), so they can be set before this
// library is loaded.
bool tf32_allowed() { return allow_tf32(); }
bool cudnn_benchmark_enabled() { return cudnn_benchmark(); }

// ---------------------------------------------------------------- devices

namespace {
struct DeviceProbe {
  int count = 0;
  std::string why_none;
};
const DeviceProbe& probe() {
  static const DeviceProbe p = [] {
    DeviceProbe r;
    // No driver, no GPU, or a driver too old for this runtime: no devices.
    const cudaError_t e = cudaGetDeviceCount(&r.count);
    if (e != cudaSuccess) {
      r.count = 0;
      r.why_none = std::string("cudaGetDeviceCount failed with ") + cudaGetErrorName(e) + " (" +
                   cudaGetErrorString(e) + ")";
    } else if (r.count == 0) {
      r.why_none = "the CUDA runtime reports no devices";
    }
    (void)cudaGetLastError();
    return r;
  }();
  return p;
}
}  // namespace

int count_devices() { return probe().count; }

std::string name_of_device(int index) {
  if (index < 0 || index >= count_devices()) return "";
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, index) != cudaSuccess) {
    (void)cudaGetLastError();
    return "";
  }
  return prop.name;
}

void synchronize_devices(int index) {
  const int n = count_devices();
  for (int i = 0; i < n; ++i) {
    if (index >= 0 && i != index) continue;
    DeviceGuard g(i);
    KILN_CUDA_CHECK(cudaDeviceSynchronize());
  }
}

void empty_device_cache(int index) {
  if (index >= 0 && index < count_devices()) device_allocator(index).empty_cache();
}

std::size_t device_memory_in_use(int index) {
  if (index < 0 || index >= count_devices()) return 0;
  return device_allocator(index).stats().in_use;
}

namespace {
constexpr int kMaxDevices = 64;
std::array<std::atomic<CudaBackend*>, kMaxDevices> g_backends{};
std::mutex g_backends_mu;
}  // namespace

CudaBackend* backend_at(int index) {
  if (index < 0 || index >= kMaxDevices || index >= count_devices()) return nullptr;
  CudaBackend* b = g_backends[index].load(std::memory_order_acquire);
  if (b) return b;
  std::lock_guard<std::mutex> lock(g_backends_mu);
  b = g_backends[index].load(std::memory_order_relaxed);
  if (!b) {
    b = new CudaBackend(index);  // leaked on purpose: tensors may outlive static destruction
    g_backends[index].store(b, std::memory_order_release);
  }
  return b;
}

// ---------------------------------------------------------------- context

DeviceContext::DeviceContext(int i) : index(i), alloc(device_allocator(i)) {
  DeviceGuard g(index);
  KILN_CUDA_CHECK(cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking));
  KILN_CUDA_CHECK(cudaStreamCreateWithFlags(&capture_stream, cudaStreamNonBlocking));
  KILN_CUBLAS_CHECK(cublasCreate(&cublas_));
}

cublasHandle_t DeviceContext::blas() {
  if (cublas_stream_ != stream()) {
    KILN_CUBLAS_CHECK(cublasSetStream(cublas_, stream()));
    cublas_stream_ = stream();
  }
  return cublas_;
}

cudnnHandle_t DeviceContext::cudnn() {
  std::call_once(cudnn_once_, [this] {
    DeviceGuard g(index);
    KILN_CUDNN_CHECK(cudnnCreate(&cudnn_));
  });
  if (cudnn_stream_ != stream()) {
    KILN_CUDNN_CHECK(cudnnSetStream(cudnn_, stream()));
    cudnn_stream_ = stream();
  }
  return cudnn_;
}

CudaBackend::CudaBackend(int index) : index_(index), ctx_(index) {}

void CudaBackend::expect_here(const char* op, std::initializer_list<const Tensor*> ts) const {
  const Device here = Device::cuda(index_);
  for (const Tensor* t : ts)
    if (t->device() != here)
      throw ValueError(std::string(op) + ": expected all tensors on " + here.to_string() +
                       ", but received a tensor with shape " + t->shape().to_string() + " on " +
                       t->device().to_string() + "; move it with .to(Device::" +
                       (here.is_cpu() ? "cpu()" : "cuda(" + std::to_string(index_) + ")") + ") first");
}

std::shared_ptr<Storage> CudaBackend::allocate(std::size_t nbytes) {
  auto s = std::make_shared<Storage>();
  s->nbytes = nbytes;
  s->device = Device::cuda(index_);
  s->data = ctx_.alloc.allocate(nbytes);
  s->deleter = [](void* p, std::size_t n, Device d) { device_allocator(d.index).release(p, n); };
  return s;
}

// ---------------------------------------------------------------- copies

void CudaBackend::copy_from(const Tensor& src, Tensor& dst) {
  const std::size_t nbytes = static_cast<std::size_t>(src.size()) * dtype_size(src.dtype());
  if (src.size() != dst.size() || src.dtype() != dst.dtype())
    throw ValueError("copy_from: source " + src.shape().to_string() + " " + dtype_name(src.dtype()) +
                     " does not match destination " + dst.shape().to_string() + " " + dtype_name(dst.dtype()));
  if (nbytes == 0) return;
  const Device sd = src.device(), dd = dst.device();
  if (sd.is_cpu() && dd.is_cpu()) {
    std::memcpy(dst.raw_data(), src.raw_data(), nbytes);
  } else if (sd.is_cpu()) {  // host -> device: asynchronous through pinned staging
    CudaBackend* b = backend_at(dd.index);
    if (!b) throw ValueError("copy_from: device " + dd.to_string() + " is not available");
    DeviceGuard g(dd.index);
    b->ctx().staging.upload(src.raw_data(), dst.raw_data(), nbytes, b->ctx().stream());
  } else if (dd.is_cpu()) {  // device -> host: the caller reads the values next, so wait
    CudaBackend* b = backend_at(sd.index);
    if (!b) throw ValueError("copy_from: device " + sd.to_string() + " is not available");
    DeviceGuard g(sd.index);
    KILN_CUDA_CHECK(cudaMemcpyAsync(dst.raw_data(), src.raw_data(), nbytes, cudaMemcpyDeviceToHost, b->ctx().stream()));
    KILN_CUDA_CHECK(cudaStreamSynchronize(b->ctx().stream()));
  } else if (sd.index == dd.index) {
    DeviceGuard g(dd.index);
    KILN_CUDA_CHECK(cudaMemcpyAsync(dst.raw_data(), src.raw_data(), nbytes, cudaMemcpyDeviceToDevice, ctx_.stream()));
  } else {
    // Across devices: order after the source's queued work, and finish before
    // returning, since each device's allocator reuses blocks in its own stream order.
    CudaBackend* bs = backend_at(sd.index);
    CudaBackend* bd = backend_at(dd.index);
    if (!bs || !bd) throw ValueError("copy_from: device " + sd.to_string() + " or " + dd.to_string() + " is not available");
    {
      DeviceGuard g(sd.index);
      KILN_CUDA_CHECK(cudaStreamSynchronize(bs->ctx().stream()));
    }
    DeviceGuard g(dd.index);
    KILN_CUDA_CHECK(cudaMemcpyPeerAsync(dst.raw_data(), dd.index, src.raw_data(), sd.index, nbytes, bd->ctx().stream()));
    KILN_CUDA_CHECK(cudaStreamSynchronize(bd->ctx().stream()));
  }
}

void CudaBackend::fill(Tensor& out, double value) {
  expect_here("fill", {&out});
  DeviceGuard g(index_);
  k::fill(to_storage_dt(out.dtype()), out.raw_data(), out.size(), value, ctx_.stream());
  KILN_CUDA_LAUNCHED("fill");
}

void CudaBackend::cast(const Tensor& x, Tensor& out) {
  expect_here("cast", {&x, &out});
  DeviceGuard g(index_);
  k::cast(to_storage_dt(x.dtype()), to_storage_dt(out.dtype()), x.raw_data(), out.raw_data(), x.size(), ctx_.stream());
  KILN_CUDA_LAUNCHED("cast");
}

void CudaBackend::strided_copy(const Tensor& src, int64_t src_off, const std::vector<int64_t>& src_strides, Tensor& dst,
                               int64_t dst_off, const std::vector<int64_t>& dst_strides, const Shape& shape,
                               bool accumulate) {
  expect_here("strided_copy", {&src, &dst});
  k::Plan p = make_plan<2>(shape.dims(), {dst_strides, src_strides});
  if (p.n == 0) return;
  bool atomic = false;  // several source elements landing on one destination element
  if (accumulate)
    for (int d = 0; d < p.rank; ++d)
      if (p.stride[0][d] == 0 && p.shape[d] > 1) atomic = true;
  DeviceGuard g(index_);
  // Adding 16-bit floats is arithmetic, which the ops do in float32.
  const k::DT dt = accumulate ? to_dt(src.dtype()) : to_storage_dt(src.dtype());
  k::strided_copy(dt, src.raw_data(), src_off, dst.raw_data(), dst_off, p, accumulate, atomic,
                  ctx_.stream());
  KILN_CUDA_LAUNCHED("strided_copy");
}

// ---------------------------------------------------------------- element-wise

void CudaBackend::unary(UnaryOp op, const Tensor& x, Tensor& out) {
  expect_here("unary op", {&x, &out});
  const DType dt = x.dtype();
  DeviceGuard g(index_);
  k::unary(static_cast<k::Un>(op), to_dt(dt), x.raw_data(), out.raw_data(), x.size(), ctx_.stream());
  KILN_CUDA_LAUNCHED("unary");
}

void CudaBackend::binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) {
  expect_here("binary op", {&a, &b, &out});
  const auto& os = out.shape().dims();
  k::Plan p = make_plan<3>(os, {contiguous_strides(out.shape()), strided::broadcast_strides(a.shape().dims(), os),
                                strided::broadcast_strides(b.shape().dims(), os)});
  DeviceGuard g(index_);
  k::binary(static_cast<k::Bin>(op), to_dt(a.dtype()), a.raw_data(), b.raw_data(), out.raw_data(), p, ctx_.stream());
  KILN_CUDA_LAUNCHED("binary");
}

void CudaBackend::where(const Tensor& cond, const Tensor& x, const Tensor& y, Tensor& out) {
  expect_here("where", {&cond, &x, &y, &out});
  const auto& os = out.shape().dims();
  k::Plan p = make_plan<4>(os, {contiguous_strides(out.shape()), strided::broadcast_strides(cond.shape().dims(), os),
                                strided::broadcast_strides(x.shape().dims(), os),
                                strided::broadcast_strides(y.shape().dims(), os)});
  DeviceGuard g(index_);
  k::where(to_dt(x.dtype()), static_cast<const bool*>(cond.raw_data()), x.raw_data(), y.raw_data(), out.raw_data(), p,
           ctx_.stream());
  KILN_CUDA_LAUNCHED("where");
}

// ---------------------------------------------------------------- reductions

void CudaBackend::reduce(ReduceOp op, const Tensor& x, Tensor& out) {
  expect_here("reduce", {&x, &out});
  k::ReducePlan p = make_reduce_plan(x.shape().dims(), out.shape().dims());
  DeviceGuard g(index_);
  Scratch scratch(ctx_, static_cast<std::size_t>(k::reduce_scratch_elems(p)) * dtype_size(x.dtype()));
  k::reduce(static_cast<k::Red>(op), to_dt(x.dtype()), x.raw_data(), out.raw_data(), p, scratch.get(), ctx_.stream());
  KILN_CUDA_LAUNCHED("reduce");
}


void CudaBackend::arg_reduce(bool is_max, const Tensor& x, int axis, Tensor& out) {
  expect_here(is_max ? "argmax" : "argmin", {&x, &out});
  const AxisSplit s = split_at(x.shape(), axis);
  DeviceGuard g(index_);
  k::arg_reduce(is_max, to_dt(x.dtype()), x.raw_data(), static_cast<int64_t*>(out.raw_data()), s.outer, s.n, s.inner,
                ctx_.stream());
  KILN_CUDA_LAUNCHED("arg_reduce");
}

// ---------------------------------------------------------------- indexing

void CudaBackend::gather(const Tensor& params, const Tensor& indices, int axis, Tensor& out) {
  expect_here("gather", {&params, &indices, &out});
  const AxisSplit s = split_at(params.shape(), axis);
  DeviceGuard g(index_);
  k::gather(dtype_size(params.dtype()), params.raw_data(), to_dt(indices.dtype()), indices.raw_data(), indices.size(),
            out.raw_data(), s.outer, s.n, s.inner, ctx_.stream());
  KILN_CUDA_LAUNCHED("gather");
}

void CudaBackend::scatter_add(Tensor& out, const Tensor& indices, const Tensor& updates, int axis) {
  expect_here("scatter_add", {&out, &indices, &updates});
  if (out.dtype() == DType::bool_) return;  // as the CPU backend: nothing to add
  const AxisSplit s = split_at(out.shape(), axis);
  DeviceGuard g(index_);
  k::scatter_add(to_dt(out.dtype()), out.raw_data(), to_dt(indices.dtype()), indices.raw_data(), indices.size(),
                 updates.raw_data(), s.outer, s.n, s.inner, ctx_.stream());
  KILN_CUDA_LAUNCHED("scatter_add");
}

void CudaBackend::one_hot(const Tensor& indices, int64_t depth, Tensor& out) {
  expect_here("one_hot", {&indices, &out});
  DeviceGuard g(index_);
  k::fill(to_dt(out.dtype()), out.raw_data(), out.size(), 0.0, ctx_.stream());
  k::one_hot(to_dt(out.dtype()), to_dt(indices.dtype()), indices.raw_data(), indices.size(), depth, out.raw_data(),
             ctx_.stream());
  KILN_CUDA_LAUNCHED("one_hot");
}

}  // namespace kiln::cuda

#if defined(KILN_CUDA_NCCL)
namespace kiln::cuda {
const NcclApi* nccl_api();  // nccl_collectives.cpp
}
#endif

// The plugin's one exported symbol (plugin_api.h): libkiln finds it with dlsym.
extern "C" __attribute__((visibility("default"))) const kiln::cuda::PluginApi* kiln_cuda_plugin() {
  namespace c = kiln::cuda;
  static const c::PluginApi api{
      c::kPluginAbiVersion,
      c::count_devices,
      [] { return c::probe().why_none; },
      c::name_of_device,
      c::synchronize_devices,
      c::empty_device_cache,
      c::device_memory_in_use,
      [](int index) -> kiln::backend::Backend* { return c::backend_at(index); },
#if defined(KILN_CUDA_NCCL)
      c::nccl_api,
#else
      [] { return static_cast<const c::NcclApi*>(nullptr); },
#endif
  };
  return &api;
}

