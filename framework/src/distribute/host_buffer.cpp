#include "distribute/host_buffer.h"

#include <cstring>
#include <string>

#include "backend/backend.h"
#include "kiln/core/error.h"

namespace kiln::distribute {

ElemType elem_type(DType d, const char* what) {
  switch (d) {
    case DType::float32: return ElemType::Float32;
    case DType::float64: return ElemType::Float64;
    case DType::int64: return ElemType::Int64;
    default: break;
  }
  throw TypeError(std::string(what) + ": collectives take float32, float64 or int64 tensors, got " + dtype_name(d));
}

std::size_t byte_size(const Tensor& t) { return static_cast<std::size_t>(t.size()) * dtype_size(t.dtype()); }

void copy_out(const Tensor& t, void* dst) {
  const std::size_t n = byte_size(t);
  if (n == 0) return;
  const Tensor host = t.device().is_cpu() ? t : t.to(Device::cpu());
  std::memcpy(dst, host.raw_data(), n);
}

void copy_in(const void* src, Tensor& dst) {
  const std::size_t n = byte_size(dst);
  if (n == 0) return;
  if (dst.device().is_cpu()) {
    std::memcpy(dst.raw_data(), src, n);
    return;
  }
  Tensor host = Tensor::empty(dst.shape(), dst.dtype(), Device::cpu());
  std::memcpy(host.raw_data(), src, n);
  backend::backend_for(dst.device()).copy_from(host, dst);
}

}  // namespace kiln::distribute
