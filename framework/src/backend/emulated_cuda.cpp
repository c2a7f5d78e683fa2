#include "backend/emulated_cuda.h"

#include <cstdlib>
#include <cstring>

#include "backend/cpu/cpu_backend.h"
#include "backend/cuda/plugin_api.h"

namespace kiln::cuda {
namespace {

class EmulatedCudaBackend final : public cpu::CpuBackend {
 public:
  Device device() const override { return Device::cuda(0); }
  std::shared_ptr<Storage> allocate(std::size_t nbytes) override {
    auto s = CpuBackend::allocate(nbytes);
    s->device = Device::cuda(0);
    return s;
  }
};

backend::Backend* backend_at(int index) {
  static EmulatedCudaBackend be;
  return index == 0 ? &be : nullptr;
}

const PluginApi kApi{
    kPluginAbiVersion,
    [] { return 1; },
    [] { return std::string(); },
    [](int index) { return index == 0 ? std::string("CPU emulating a CUDA device (KILN_EMULATE_CUDA=1)") : std::string(); },
    [](int) {},
    [](int) {},
    [](int) -> std::size_t { return 0; },
    &backend_at,
    [] { return static_cast<const NcclApi*>(nullptr); },  // no NCCL on an emulated device
};

}  // namespace

bool emulation_requested() {
  static const bool on = [] {
    const char* v = std::getenv("KILN_EMULATE_CUDA");
    return v && std::strcmp(v, "1") == 0;
  }();
  return on;
}

const PluginApi* emulated_plugin() { return &kApi; }

}  // namespace kiln::cuda
