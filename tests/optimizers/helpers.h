#pragma once
// Shared helpers for the optimizer tests: a small float64 variable, three
// fixed gradients, and a driver that compares three optimizer steps against a
// reference recurrence written in plain doubles.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "kiln/training/optimizer.h"

namespace opt_test {

using Vec = std::vector<double>;

inline const Vec kInit = {1.0, -2.0, 3.0};
inline const std::vector<Vec> kGrads = {{0.1, -0.2, 0.3}, {0.5, 0.4, -0.6}, {-0.3, 0.2, 0.1}};

inline kiln::Tensor vec(const Vec& v) { return kiln::Tensor(v, kiln::Shape{static_cast<int64_t>(v.size())}); }

inline kiln::Variable make_var(const Vec& init = kInit, const std::string& path = "dense/kernel",
                               kiln::VariableOptions o = {.name = "kernel"}) {
  kiln::Variable v(vec(init), std::move(o));
  v.set_path(path);
  return v;
}

inline Vec values(const kiln::Variable& v) { return v.read_value_untracked().to_vector<double>(); }

inline void check_close(const Vec& got, const Vec& want, double eps = 1e-12) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == doctest::Approx(want[i]).epsilon(eps));
  }
}

/// ref(w, g, t) advances the reference weights by one step (t = 1, 2, 3),
/// keeping its own per-element state.
using RefStep = std::function<void(Vec& w, const Vec& g, int t)>;

inline void check_three_steps(kiln::Optimizer& opt, RefStep ref, double eps = 1e-12) {
  kiln::Variable var = make_var();
  Vec w = kInit;
  for (int t = 1; t <= 3; ++t) {
    CAPTURE(t);
    opt.apply({vec(kGrads[t - 1])}, {var});
    ref(w, kGrads[t - 1], t);
    CHECK(var.dtype() == kiln::DType::float64);
    check_close(values(var), w, eps);
  }
  CHECK(opt.iterations() == 3);
}

}  // namespace opt_test
