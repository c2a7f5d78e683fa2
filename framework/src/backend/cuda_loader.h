#pragma once
// Private: finds and loads the CUDA backend plugin (cuda/plugin_api.h).
#include <string>

namespace kiln::backend {
class Backend;
}

namespace kiln::cuda {

/// The backend of CUDA device `index`. Loads the plugin on first use; throws a
/// ValueError naming the device and the reason (no CUDA build, a library that
/// could not be loaded, no such device) when there is none.
backend::Backend& backend_for_device(int index);

struct NcclApi;
/// The plugin's NCCL functions (backend/cuda/nccl_api.h), or null with the
/// reason in `why` (no CUDA build, no NCCL in it, an emulated device).
const NcclApi* nccl_api(std::string* why);

}  // namespace kiln::cuda
