#pragma once
// A public gradient checker: compares the tape's gradients with central
// differences in float64. Use it for your own ops and layers.
//
//   auto r = kiln::check_gradients([](const std::vector<Tensor>& in) { return kiln::tanh(in[0]); },
//                                  {kiln::random::normal({3, 4})});
//   assert(r.ok);
#include <functional>
#include <string>
#include <vector>

#include "kiln/core/tensor.h"
#include "kiln/autodiff/variable.h"

namespace kiln {

/// Options of check_gradients().
struct GradientCheckOptions {
  double epsilon = 1e-6;   ///< central-difference step
  double atol = 1e-6;      ///< |analytic - numeric| <= atol + rtol * |numeric|
  double rtol = 1e-4;  ///< Relative tolerance (see atol).
  uint64_t seed = 1234;    ///< for the random projection of non-scalar outputs
};

/// What check_gradients() found.
struct GradientCheckResult {
  bool ok = true;  ///< Whether every gradient matched.
  double max_abs_error = 0;  ///< Largest |analytic - numeric|.
  double max_rel_error = 0;  ///< Largest relative error.
  /// Human-readable description of the worst mismatch.
  std::string report;
};

/// Checks d(sum(f(x) * r))/dx for a fixed random r against central differences.
/// Floating inputs are cast to float64; integer inputs are passed unchanged and not checked.
GradientCheckResult check_gradients(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                                    const std::vector<Tensor>& inputs, GradientCheckOptions options = {});
/// Checks gradients with respect to variables (perturbed in place and restored).
/// The variables should be float64 for a tight check.
GradientCheckResult check_gradients(const std::function<Tensor()>& f, const std::vector<Variable>& variables,
                                    GradientCheckOptions options = {});

}  // namespace kiln
