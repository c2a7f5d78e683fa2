// The optimizers module's registration entry point. Each built-in optimizer
// and schedule registers with one KILN_REGISTER_OPTIMIZER or
// KILN_REGISTER_SCHEDULE line in its own .cpp; the build collects those lines
// into kiln_register_builtins_optimizer() and kiln_register_builtins_schedule().
// See kiln/optimizers/register.h for why the hook.
#include <mutex>

#include "kiln/optimizers/all.h"

extern "C" void kiln_register_builtins_optimizer();
extern "C" void kiln_register_builtins_schedule();

namespace kiln::optimizers {

namespace {

void register_all() {
  kiln_register_builtins_optimizer();
  kiln_register_builtins_schedule();
}

// Installs the hook whenever the linker keeps this TU.
[[maybe_unused]] const bool hook_installed = [] {
  detail::builtins_hook = &register_builtins;
  return true;
}();

}  // namespace

void register_builtins() {
  static std::once_flag once;
  detail::builtins_hook = &register_builtins;
  std::call_once(once, register_all);
}

}  // namespace kiln::optimizers
