#pragma once
// Fused optimizer updates: one pass over a variable and its slots instead of
// a chain of element-wise ops. Optimizers call these from update_step; the
// formulas are Keras's exactly (same operation order, in the variable's dtype).
// The step size is a HostScalar: inside a kiln::function trace a live one is
// read afresh at every replay (an optimizer's learning rate and bias corrections).
#include "kiln/core/host_scalar.h"
#include "kiln/core/tensor.h"
#include "kiln/autodiff/variable.h"

namespace kiln::fused {

/// Keras Adam step with alpha = lr·√(1−β2ᵗ)/(1−β1ᵗ) precomputed:
///   m += (g − m)(1 − β1);  v += (g² − v)(1 − β2);  [v̂ = max(v̂, v)]
///   var −= alpha · m / (√v(or v̂) + ε)
/// v_hat may be null (no amsgrad).
void adam_update(Variable& var, Variable& m, Variable& v, Variable* v_hat, const Tensor& grad, HostScalar alpha,
                 double beta_1, double beta_2, double epsilon);

/// Keras SGD: with momentum (m non-null) m = momentum·m − lr·g, then
/// var += momentum·m − lr·g (nesterov) or var += m; without it var −= lr·g.
void sgd_update(Variable& var, Variable* m, const Tensor& grad, HostScalar lr, double momentum, bool nesterov);

/// Keras RMSprop: v = ρ·v + (1−ρ)·g²; centered (avg non-null) avg = ρ·avg + (1−ρ)·g and
/// d = v − avg² + ε, else d = v + ε; inc = g·lr/√d; var −= inc, or through the momentum
/// slot (mom non-null): mom = momentum·mom + inc, var −= mom.
void rmsprop_update(Variable& var, Variable& v, Variable* mom, Variable* avg, const Tensor& grad, HostScalar lr,
                    double rho, double momentum, double epsilon);

}  // namespace kiln::fused
