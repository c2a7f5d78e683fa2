// The public kiln/backend/cuda.h API and the loader of the CUDA backend plugin.
//
// The plugin (libkiln_cuda.so, cuda/plugin_api.h) is looked for, in order:
//   1. the path in KILN_CUDA_PLUGIN, when set;
//   2. beside libkiln itself (the build folder, or the install's lib folder);
//   3. the dynamic linker's usual search (LD_LIBRARY_PATH, ld.so.cache).
// It is loaded once, on the first call that needs a device. If it, or a CUDA
// library it needs, is missing, every query answers "no devices" and asking for
// a CUDA device raises an error that quotes the loader; the CPU is unaffected.
// KILN_EMULATE_CUDA=1 replaces the plugin with a CPU stand-in (emulated_cuda.h).
#include "backend/cuda_loader.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>

#include "backend/cuda/plugin_api.h"
#include "backend/emulated_cuda.h"
#include "core/plugin_loader.h"
#include "kiln/backend/cuda.h"
#include "kiln/core/device.h"
#include "kiln/core/error.h"

namespace kiln::cuda {
namespace {

#if defined(KILN_CUDA_PLUGIN_FILE)
constexpr bool kBuiltWithCuda = true;
constexpr const char* kPluginFile = KILN_CUDA_PLUGIN_FILE;
#else
constexpr bool kBuiltWithCuda = false;
constexpr const char* kPluginFile = "libkiln_cuda.so";
#endif

struct Plugin {
  const PluginApi* api = nullptr;
  std::string error;  // why api is null
};

/// Version check of a loaded plugin's interface; "" on success, else why not.
std::string check_api(const PluginApi* a, const std::string& where) {
  if (a && a->abi_version == kPluginAbiVersion) return "";
  return where + ": plugin interface version " + std::to_string(a ? a->abi_version : -1) + ", but this libkiln needs " +
         std::to_string(kPluginAbiVersion) + " (a stale libkiln_cuda.so from another build?)";
}

Plugin load() {
  Plugin p;
  if (emulation_requested()) {
    p.api = emulated_plugin();
    return p;
  }
  if (!kBuiltWithCuda) {
    p.error = "this Kiln was built without the CUDA backend (configure a shared build with the CUDA toolkit and "
              "cuDNN present, or -DKILN_CUDA=ON to require it)";
    return p;
  }
  std::string why;
  if (auto entry = reinterpret_cast<PluginEntry>(plugins::load_entry("KILN_CUDA_PLUGIN", kPluginFile, kPluginEntry, why))) {
    // Kept loaded for the life of the process: tensors on the device outlive any scope.
    const PluginApi* a = entry();
    why = check_api(a, kPluginFile);
    if (why.empty()) p.api = a;
  }
  if (!p.api) p.error = "the CUDA backend could not be loaded: " + why;
  return p;
}

const Plugin& plugin() {
  static const Plugin p = load();
  return p;
}

std::atomic<bool>& flag(bool tf32) {
  auto env_flag = [](const char* name, bool dflt) {
    const char* v = std::getenv(name);
    if (!v || !*v) return dflt;
    return !(std::strcmp(v, "0") == 0 || std::strcmp(v, "false") == 0 || std::strcmp(v, "off") == 0);
  };
  static std::atomic<bool> tf32_on{env_flag("KILN_CUDA_TF32", false)};
  static std::atomic<bool> benchmark_on{env_flag("KILN_CUDNN_BENCHMARK", true)};
  return tf32 ? tf32_on : benchmark_on;
}

}  // namespace

int device_count() {
  const Plugin& p = plugin();
  return p.api ? p.api->device_count() : 0;
}

bool is_available() { return device_count() > 0; }

std::string unavailable_reason() {
  const Plugin& p = plugin();
  if (!p.api) return p.error;
  return p.api->device_count() > 0 ? "" : p.api->no_device_reason();
}

std::string device_name(int index) {
  const Plugin& p = plugin();
  return p.api ? p.api->device_name(index) : "";
}

void synchronize(int index) {
  if (const Plugin& p = plugin(); p.api) p.api->synchronize(index);
}

void empty_cache(int index) {
  if (const Plugin& p = plugin(); p.api) p.api->empty_cache(index);
}

std::size_t memory_allocated(int index) {
  const Plugin& p = plugin();
  return p.api ? p.api->memory_allocated(index) : 0;
}

void set_allow_tf32(bool allow) { flag(true) = allow; }
bool allow_tf32() { return flag(true).load(std::memory_order_relaxed); }
void set_cudnn_benchmark(bool enable) { flag(false) = enable; }
bool cudnn_benchmark() { return flag(false).load(std::memory_order_relaxed); }

const NcclApi* nccl_api(std::string* why) {
  const Plugin& p = plugin();
  const NcclApi* api = p.api && p.api->nccl ? p.api->nccl() : nullptr;
  if (!api && why)
    *why = !p.api ? p.error
           : emulation_requested() ? "the CUDA device is emulated (KILN_EMULATE_CUDA=1)"
                                   : "the CUDA plugin was built without NCCL (nccl.h and libnccl were not found)";
  return api;
}

backend::Backend& backend_for_device(int index) {
  const std::string dev = Device::cuda(index).to_string();
  const Plugin& p = plugin();
  if (!p.api) throw ValueError("Device " + dev + " is not available: " + p.error);
  if (backend::Backend* b = p.api->backend_at(index)) return *b;
  const int n = p.api->device_count();
  throw ValueError("Device " + dev + " is not available: " +
                   (n == 0 ? p.api->no_device_reason()
                           : "there are " + std::to_string(n) + " CUDA device(s), cuda:0 to cuda:" +
                                 std::to_string(n - 1)) +
                   " (see kiln::cuda::device_count())");
}

}  // namespace kiln::cuda
