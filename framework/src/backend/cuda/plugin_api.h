#pragma once
// Private: the table through which libkiln reaches the CUDA backend.
//
// The CUDA backend is a separate shared library (libkiln_cuda.so) that libkiln
// loads with dlopen the first time a CUDA device is asked for or probed, as
// TensorFlow loads its GPU libraries. A program that never touches a GPU
// therefore never maps libcudart, cuBLAS or cuDNN (about 165 MB of RSS), and
// the same binary starts on machines without the CUDA runtime.
//
// The plugin exports one C symbol, kKilnCudaPluginEntry, returning this table.
// Both sides are built from the same tree with the same compiler, so C++ types
// cross the boundary; abi_version guards against a stale plugin left beside a
// newer libkiln.
#include <cstddef>
#include <string>

#include "backend/cuda/nccl_api.h"

namespace kiln::backend {
class Backend;
}

namespace kiln::cuda {

inline constexpr int kPluginAbiVersion = 2;
inline constexpr const char* kPluginEntry = "kiln_cuda_plugin";

struct PluginApi {
  int abi_version;
  /// Number of usable devices; 0 when the driver or the GPU is missing.
  int (*device_count)();
  /// Why there are no devices ("" when there are some): the CUDA runtime's error.
  std::string (*no_device_reason)();
  std::string (*device_name)(int index);
  void (*synchronize)(int index);
  void (*empty_cache)(int index);
  std::size_t (*memory_allocated)(int index);
  /// The backend of device `index` (created on first use), or nullptr when absent.
  backend::Backend* (*backend_at)(int index);
  /// NCCL for kiln::distribute (nccl_api.h), or nullptr when built without it.
  const NcclApi* (*nccl)();
};

using PluginEntry = const PluginApi* (*)();

}  // namespace kiln::cuda
