// The losses module's registration entry point. Each built-in loss registers
// with one KILN_REGISTER_LOSS line in its own .cpp; the build collects those
// lines into kiln_register_builtins_loss().
#include <mutex>

#include "kiln/losses/losses.h"

extern "C" void kiln_register_builtins_loss();

namespace kiln::losses {

namespace {

// Runs when this object file is linked in (it is whenever register_builtins
// is referenced), so the framework's lookups can fill the registry lazily.
const bool hook_installed = [] {
  detail::builtins_hook = &register_builtins;
  return true;
}();

}  // namespace

void register_builtins() {
  static std::once_flag once;
  detail::builtins_hook = &register_builtins;
  std::call_once(once, kiln_register_builtins_loss);
}

}  // namespace kiln::losses
