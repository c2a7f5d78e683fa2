#pragma once
// Helpers shared by the test suites.
//
// message_of<E>(f) runs f and returns the message of the E it throws; the
// check fails when f throws something else or nothing. contains(s, part) and
// CHECK_HAS(msg, part) check that an error message says what it should.
//
// Tests that need a program or data set from outside Kiln (python3 with h5py,
// Graphviz's dot, Debian's Fashion-MNIST) check for it with
// KILN_REQUIRE_TOOL(available, "what"). scripts/test.sh installs every such
// package and sets KILN_TEST_REQUIRE_TOOLS=1, so there a missing one fails the
// test and a package dropped from the set-up scripts cannot go unnoticed; a
// developer running a test binary by hand gets a skip with a message instead.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/autodiff/gradient_check.h"
#include "kiln/core/tensor.h"
#include "kiln/ops/array_ops.h"

namespace kiln_test {

template <class E = std::exception, class F>
std::string message_of(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const std::exception& e) {
    if (dynamic_cast<const E*>(&e)) return e.what();
    FAIL_CHECK("wrong exception type: ", std::string(e.what()));
    return "";
  }
  FAIL_CHECK("no exception thrown");
  return "";
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// Every element of `t`, as a double, equals `expected`'s to relative `eps`.
inline void check_values(const kiln::Tensor& t, const std::vector<double>& expected, double eps = 1e-6) {
  auto got = t.to_vector<double>();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element ", i);
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(eps));
  }
}

/// kiln::check_gradients(f, xs) passes: f's gradients match central differences.
inline void check_gradients_ok(const std::string& name,
                               const std::function<kiln::Tensor(const std::vector<kiln::Tensor>&)>& f,
                               const std::vector<kiln::Tensor>& xs) {
  auto r = kiln::check_gradients(f, xs);
  INFO(name, ": ", r.report);
  CHECK(r.ok);
}

/// 0, 1, 2, ... laid out in `shape`, as `dtype`.
inline kiln::Tensor iota(const kiln::Shape& shape, kiln::DType dtype = kiln::DType::float64) {
  std::vector<double> v(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return kiln::cast(kiln::Tensor(v, shape), dtype);
}

inline bool tools_required() {
  const char* v = std::getenv("KILN_TEST_REQUIRE_TOOLS");
  return v && std::strcmp(v, "1") == 0;
}
}  // namespace kiln_test

#define CHECK_HAS(msg, part) \
  CHECK_MESSAGE(::kiln_test::contains(msg, part), "message \"", msg, "\" lacks \"", part, "\"")

#define KILN_REQUIRE_TOOL(available, what)                                                  \
  do {                                                                                      \
    if (!(available)) {                                                                     \
      if (::kiln_test::tools_required()) FAIL("missing " << what << " (scripts/test.sh installs it)"); \
      MESSAGE("skipped: missing " << what);                                                 \
      return;                                                                               \
    }                                                                                       \
  } while (0)
