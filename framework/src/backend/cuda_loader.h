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

}  // namespace kiln::cuda
