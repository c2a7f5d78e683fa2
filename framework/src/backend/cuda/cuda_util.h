#pragma once
// Private (host C++, CUDA builds only): error checks and small helpers shared by
// the CUDA backend's .cpp files. Every CUDA, cuBLAS and cuDNN status becomes a
// kiln::RuntimeError naming the call, so a failure never aborts the process.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <string>

#include "backend/cuda/kernel_types.h"
#include "kiln/core/device.h"
#include "kiln/core/dtype.h"
#include "kiln/core/error.h"

namespace kiln::cuda {

[[noreturn]] void throw_cuda(cudaError_t e, const char* what, const char* file, int line);
[[noreturn]] void throw_cublas(cublasStatus_t e, const char* what, const char* file, int line);
[[noreturn]] void throw_cudnn(cudnnStatus_t e, const char* what, const char* file, int line);

#define KILN_CUDA_CHECK(expr)                                                 \
  do {                                                                        \
    cudaError_t kiln_e_ = (expr);                                             \
    if (kiln_e_ != cudaSuccess) ::kiln::cuda::throw_cuda(kiln_e_, #expr, __FILE__, __LINE__); \
  } while (0)
#define KILN_CUBLAS_CHECK(expr)                                               \
  do {                                                                        \
    cublasStatus_t kiln_e_ = (expr);                                          \
    if (kiln_e_ != CUBLAS_STATUS_SUCCESS) ::kiln::cuda::throw_cublas(kiln_e_, #expr, __FILE__, __LINE__); \
  } while (0)
#define KILN_CUDNN_CHECK(expr)                                                \
  do {                                                                        \
    cudnnStatus_t kiln_e_ = (expr);                                           \
    if (kiln_e_ != CUDNN_STATUS_SUCCESS) ::kiln::cuda::throw_cudnn(kiln_e_, #expr, __FILE__, __LINE__); \
  } while (0)
/// After a kernel launch: reports a bad launch configuration at once (the
/// kernel's own faults surface at the next synchronising call).
#define KILN_CUDA_LAUNCHED(name) KILN_CUDA_CHECK(cudaGetLastError())

/// Makes `device` current for the scope and restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int prev_ = 0, cur_ = 0;
};

/// A cuDNN descriptor owned for a scope.
template <class T, cudnnStatus_t (*Create)(T*), cudnnStatus_t (*Destroy)(T)>
class Desc {
 public:
  Desc() { KILN_CUDNN_CHECK(Create(&d_)); }
  ~Desc() { Destroy(d_); }
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  operator T() const { return d_; }

 private:
  T d_{};
};
using TensorDesc = Desc<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDesc = Desc<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvDesc = Desc<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor, cudnnDestroyConvolutionDescriptor>;

/// The kernels' code of a dtype that moves as bits: fill, cast and copies.
inline k::DT to_storage_dt(DType d) { return static_cast<k::DT>(static_cast<int>(d)); }
/// The kernels' code of a dtype an arithmetic kernel computes in. The ops
/// compute 16-bit floats in float32 (ops/half_compute.h), so a float16 or
/// bfloat16 tensor here is a bug in an op, named rather than left to a kernel
/// whose dispatch has no case for it.
inline k::DT to_dt(DType d) {
  if (is_half_float(d))
    throw TypeError("internal: a CUDA kernel received a " + dtype_name(d) +
                    " tensor; the op should compute it in float32");
  if (d == DType::int8)
    throw TypeError("int8 tensors are stored but not computed on the GPU yet: quantized layers run on the CPU");
  return to_storage_dt(d);
}

}  // namespace kiln::cuda
