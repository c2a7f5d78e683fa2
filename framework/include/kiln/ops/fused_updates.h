#pragma once
// Fused optimizer updates: one pass over a variable and its slots instead of
// a chain of element-wise ops. Optimizers call these from update_step; the
// formulas are Keras's exactly (same operation order, in the variable's dtype).
#include "kiln/core/tensor.h"
#include "kiln/autodiff/variable.h"

namespace kiln::fused {

/// Keras Adam step with alpha = lr·√(1−β2ᵗ)/(1−β1ᵗ) precomputed:
///   m += (g − m)(1 − β1);  v += (g² − v)(1 − β2);  [v̂ = max(v̂, v)]
///   var −= alpha · m / (√v(or v̂) + ε)
/// v_hat may be null (no amsgrad).
void adam_update(Variable& var, Variable& m, Variable& v, Variable* v_hat, const Tensor& grad, double alpha,
                 double beta_1, double beta_2, double epsilon);

}  // namespace kiln::fused
