#pragma once
// Tests that need a program or data set from outside Kiln (python3 with h5py,
// Graphviz's dot, Debian's Fashion-MNIST) check for it with
// KILN_REQUIRE_TOOL(available, "what"). scripts/test.sh installs every such
// package and sets KILN_TEST_REQUIRE_TOOLS=1, so there a missing one fails the
// test and a package dropped from the set-up scripts cannot go unnoticed; a
// developer running a test binary by hand gets a skip with a message instead.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>

namespace kiln_test {
inline bool tools_required() {
  const char* v = std::getenv("KILN_TEST_REQUIRE_TOOLS");
  return v && std::strcmp(v, "1") == 0;
}
}  // namespace kiln_test

#define KILN_REQUIRE_TOOL(available, what)                                                  \
  do {                                                                                      \
    if (!(available)) {                                                                     \
      if (::kiln_test::tools_required()) FAIL("missing " << what << " (scripts/test.sh installs it)"); \
      MESSAGE("skipped: missing " << what);                                                 \
      return;                                                                               \
    }                                                                                       \
  } while (0)
