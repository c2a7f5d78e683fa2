// The libFuzzer entry of one target: compiled once per target with
// KILN_FUZZ_TARGET set to the target's name (fuzz/CMakeLists.txt).
#include <cstdlib>

#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const kiln_fuzz::Target* target = kiln_fuzz::find_target(KILN_FUZZ_TARGET);
  if (!target) std::abort();
  kiln_fuzz::run_one(*target, data, size);
  return 0;
}
