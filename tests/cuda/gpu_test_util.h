#pragma once
// Helpers of the CUDA parity suite. Every GPU test starts with
// KILN_REQUIRE_GPU("what"), which passes with a message on machines without a
// CUDA device (CI, laptops), so the suite runs everywhere.
//
// parity(name, f, inputs) runs f on the CPU and on cuda:0 with the same
// inputs, under a tape, and compares the outputs and the gradients of
// sum(f(x)·r) (r a fixed random tensor) with respect to every float input.
// To cover a new op: add one parity(...) line to test_parity_ops.cpp.
//
// KILN_EMULATE_CUDA=1 runs the GPU cases on an emulated cuda:0 whose kernels
// are the CPU's (framework/src/backend/emulated_cuda.h): on machines without a
// GPU it checks the suite's own logic and that no code path mixes devices
// (the arithmetic is then CPU against CPU).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kiln/backend/cuda.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/ops/ops.h"
#include "kiln/ops/random.h"
#include "kiln/core/tensor.h"

#define KILN_REQUIRE_GPU(what)                                        \
  do {                                                                \
    if (!::kiln::cuda::is_available()) {                              \
      MESSAGE("no CUDA device: skipping " what);                      \
      return;                                                         \
    }                                                                 \
  } while (0)

/// For checks that only mean something on a real device (errors, GPU-only semantics).
#define KILN_REQUIRE_REAL_GPU(what)                                   \
  do {                                                                \
    if (!::kiln::cuda::is_available() || ::kiln::cudatest::emulated()) { \
      MESSAGE("no real CUDA device: skipping " what);                 \
      return;                                                         \
    }                                                                 \
  } while (0)

namespace kiln::cudatest {

inline bool emulated() {
  const char* v = std::getenv("KILN_EMULATE_CUDA");
  return v && v[0] == '1';
}
inline Device gpu() { return Device::cuda(0); }

struct Tol {
  double rtol = 1e-5;
  double atol = 1e-6;
};
/// float32 maths on two devices: different summation orders and libm.
inline constexpr Tol kF32{2e-4, 2e-5};
/// float64: only summation order differs.
inline constexpr Tol kF64{1e-10, 1e-12};

inline Tol tol_for(DType d) { return d == DType::float64 ? kF64 : kF32; }

/// Elementwise |a - b| <= atol + rtol·|a| (NaNs must match, infinities must be equal).
inline void check_close(const std::string& what, const Tensor& expected, const Tensor& got, Tol t) {
  INFO(what);
  REQUIRE(got.device() == expected.device());
  REQUIRE(got.dtype() == expected.dtype());
  REQUIRE(got.shape() == expected.shape());
  const auto e = expected.to_vector<double>();
  const auto g = got.to_vector<double>();
  int bad = 0;
  for (std::size_t i = 0; i < e.size() && bad < 5; ++i) {
    bool ok;
    if (std::isnan(e[i])) ok = std::isnan(g[i]);
    else if (std::isinf(e[i])) ok = g[i] == e[i];
    else ok = std::abs(e[i] - g[i]) <= t.atol + t.rtol * std::abs(e[i]);
    if (!ok) {
      ++bad;
      FAIL_CHECK("element " << i << ": CPU " << e[i] << " vs GPU " << g[i]);
    }
  }
}

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct RunResult {
  Tensor y;
  std::vector<std::optional<Tensor>> grads;
};

/// f on `device` (inputs copied there); outputs and gradients brought back to the CPU.
inline RunResult run_on(Device device, const Fn& f, const std::vector<Tensor>& inputs, bool grads) {
  std::vector<Tensor> ins;
  for (const auto& t : inputs) ins.push_back(t.to(device));
  RunResult r;
  GradientTape tape;
  std::vector<Source> sources;
  for (const auto& t : ins)
    if (is_floating(t.dtype())) {
      tape.watch(t);
      sources.emplace_back(t);
    }
  Tensor y = f(ins);
  REQUIRE(y.device() == device);
  r.y = y.to(Device::cpu());
  if (!grads || sources.empty() || !is_floating(y.dtype())) return r;
  Tensor w = random::normal(y.shape(), 0, 1, y.dtype(), 4242).to(device);
  Tensor target = sum(multiply(y, w));
  auto g = tape.gradient(target, sources, UnconnectedGradients::Zero);
  for (auto& gi : g) r.grads.push_back(gi ? std::optional<Tensor>(gi->to(Device::cpu())) : std::nullopt);
  return r;
}

/// Forward and backward of f agree between the CPU and cuda:0.
inline void parity(const std::string& name, const Fn& f, const std::vector<Tensor>& inputs,
                   std::optional<Tol> tol = std::nullopt, bool grads = true) {
  RunResult c = run_on(Device::cpu(), f, inputs, grads);
  RunResult g = run_on(gpu(), f, inputs, grads);
  const Tol t = tol.value_or(tol_for(c.y.dtype()));
  check_close(name + ": forward", c.y, g.y, t);
  REQUIRE(c.grads.size() == g.grads.size());
  for (std::size_t i = 0; i < c.grads.size(); ++i) {
    REQUIRE(c.grads[i].has_value() == g.grads[i].has_value());
    if (c.grads[i]) check_close(name + ": gradient " + std::to_string(i), *c.grads[i], *g.grads[i], t);
  }
}

}  // namespace kiln::cudatest
