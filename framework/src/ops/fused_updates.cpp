#include "kiln/ops/fused_updates.h"

#include "autodiff/autodiff.h"
#include "backend/backend.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"

namespace kiln::fused {

void adam_update(Variable& var, Variable& m, Variable& v, Variable* v_hat, const Tensor& grad, double alpha,
                 double beta_1, double beta_2, double epsilon) {
  if (!(grad.shape() == var.shape()))
    throw ShapeError("adam_update: gradient of shape " + grad.shape().to_string() + " for variable '" + var.path() +
                     "' of shape " + var.shape().to_string());
  Tensor w = var.read_value_untracked();
  Tensor g = grad.dtype() == w.dtype() ? grad : grad.cast(w.dtype());
  if (w.device() == g.device() && is_floating(w.dtype())) {
    // In place, unless a snapshot (e.g. on a live tape) shares a buffer.
    w = var.value_for_update();
    Tensor mt = m.value_for_update(), vt = v.value_for_update();
    Tensor vh = v_hat ? v_hat->value_for_update() : Tensor();
    if (backend::backend_for(w.device()).adam_update(w, mt, vt, v_hat ? &vh : nullptr, g, alpha, 1 - beta_1,
                                                     1 - beta_2, epsilon))
      return;
  }
  // Backends without a fused kernel: the same formula through ops.
  autodiff::Pause pause;
  m.assign_add((g - m.read_value_untracked()) * (1 - beta_1));
  v.assign_add((square(g) - v.read_value_untracked()) * (1 - beta_2));
  Tensor denom = v.read_value_untracked();
  if (v_hat) {
    v_hat->assign(maximum(v_hat->read_value_untracked(), denom));
    denom = v_hat->read_value_untracked();
  }
  var.assign_sub(m.read_value_untracked() * alpha / (sqrt(denom) + epsilon));
}

}  // namespace kiln::fused
