#pragma once
// Weight constraints, applied by the optimizer after each update:
// MaxNorm(2, axis=0), MinMaxNorm(0, 1, rate=1, axis=0), NonNeg, UnitNorm(axis=0).
//   auto c = kiln::constraints::MaxNorm(2.0);     // columns of a Dense kernel (axis 0)
//   Tensor w2 = (*c)(w);                            // w * clip(norm, 0, 2) / (1e-7 + norm)
// Norms are sqrt(sum(w^2)) over `axis` (one axis or several), kept as size-1 axes;
// 1e-7 is Keras's backend.epsilon().
// To add one: derive from Constraint and register it in framework/src/nn/constraints.cpp.
#include <memory>
#include <string>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/core/tensor.h"

namespace kiln::constraints {

/// Base of every weight constraint (Keras's keras.constraints.Constraint): applied to
/// a variable after each optimizer update.
class Constraint {
 public:
  virtual ~Constraint() = default;
  /// The constrained weights for `w`.
  virtual Tensor operator()(const Tensor& w) const = 0;
  /// Keras class name ("MaxNorm").
  virtual std::string class_name() const = 0;
  /// Constraint config as JSON (Keras's get_config()).
  virtual Config get_config() const = 0;
};
using ConstraintPtr = std::shared_ptr<Constraint>;  ///< A shared constraint.

/// w * clip(norms, 0, max_value) / (eps + norms); config {"max_value", "axis"}.
ConstraintPtr MaxNorm(double max_value = 2.0, int axis = 0);
/// Several axes, e.g. {0, 1, 2} for each filter of a (kh, kw, in, out) Conv2D kernel.
ConstraintPtr MaxNorm(double max_value, std::vector<int> axes);
/// w * (rate * clip(norms, min_value, max_value) + (1 - rate) * norms) / (eps + norms);
/// config {"min_value", "max_value", "rate", "axis"}.
ConstraintPtr MinMaxNorm(double min_value = 0.0, double max_value = 1.0, double rate = 1.0, int axis = 0);
/// MinMaxNorm over several axes.
ConstraintPtr MinMaxNorm(double min_value, double max_value, double rate, std::vector<int> axes);
/// max(w, 0); config {}.
ConstraintPtr NonNeg();
/// w / (eps + norms); config {"axis"}.
ConstraintPtr UnitNorm(int axis = 0);
ConstraintPtr UnitNorm(std::vector<int> axes);  ///< UnitNorm over several axes.
/// By name ("max_norm", "min_max_norm", "non_neg", "unit_norm") or class name ("MaxNorm", ...).
/// Throws NotFoundError listing close matches for an unknown name.
ConstraintPtr get(const std::string& name);
/// Accepts {"class_name", "config"} and Keras 3's {"module", "class_name", "config", "registered_name"}.
ConstraintPtr from_config(const Config& c);
/// Keras 3 form: {"module": "keras.constraints", "class_name", "config", "registered_name": null}.
Config serialize(const Constraint& c);

}  // namespace kiln::constraints
