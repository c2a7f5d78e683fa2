// Which backend runs an op: the one of its inputs' device.
#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cuda_loader.h"

namespace kiln::backend {

Backend& cpu_backend() {
  static cpu::CpuBackend be;
  return be;
}

Backend& backend_for(Device device) {
  if (device.is_cpu()) return cpu_backend();
  return cuda::backend_for_device(device.index);
}

}  // namespace kiln::backend
