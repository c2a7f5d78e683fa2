#include "kiln/ops/fused_updates.h"

#include "autodiff/autodiff.h"
#include "backend/backend.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "ops/host_scalar_tensor.h"

namespace kiln::fused {

namespace {
void check_grad(const char* op, const Variable& var, const Tensor& grad) {
  if (!(grad.shape() == var.shape()))
    throw ShapeError(std::string(op) + ": gradient of shape " + grad.shape().to_string() + " for variable '" +
                     var.path() + "' of shape " + var.shape().to_string());
}
/// The gradient in the variable's dtype, and whether a fused kernel may run in place.
/// float16 and bfloat16 variables take the ops, which compute each step in float32
/// and round it to the variable's dtype, as Keras's ops do on them.
bool fusable(const Variable& var, const Tensor& grad, Tensor& g) {
  const Tensor w = var.read_value_untracked();
  g = grad.dtype() == w.dtype() ? grad : grad.cast(w.dtype());
  return w.device() == g.device() && is_floating(w.dtype()) && !is_half_float(w.dtype());
}
Tensor slot_for_update(Variable* v) { return v ? v->value_for_update() : Tensor(); }
}  // namespace

void adam_update(Variable& var, Variable& m, Variable& v, Variable* v_hat, const Tensor& grad, HostScalar alpha,
                 double beta_1, double beta_2, double epsilon) {
  check_grad("adam_update", var, grad);
  Tensor g;
  if (fusable(var, grad, g)) {
    // In place, unless a snapshot (e.g. on a live tape) shares a buffer.
    Tensor w = var.value_for_update();
    Tensor mt = m.value_for_update(), vt = v.value_for_update();
    Tensor vh = v_hat ? v_hat->value_for_update() : Tensor();
    if (backend::backend_for(w.device()).adam_update(w, mt, vt, v_hat ? &vh : nullptr, g, alpha, 1 - beta_1,
                                                     1 - beta_2, epsilon))
      return;
  }
  // Backends without a fused kernel: the same formula through ops.
  autodiff::Pause pause;
  const Tensor a = host_scalar_tensor(alpha, g.dtype(), g.device());
  m.assign_add((g - m.read_value_untracked()) * (1 - beta_1));
  v.assign_add((square(g) - v.read_value_untracked()) * (1 - beta_2));
  Tensor denom = v.read_value_untracked();
  if (v_hat) {
    v_hat->assign(maximum(v_hat->read_value_untracked(), denom));
    denom = v_hat->read_value_untracked();
  }
  var.assign_sub(m.read_value_untracked() * a / (sqrt(denom) + epsilon));
}

void sgd_update(Variable& var, Variable* m, const Tensor& grad, HostScalar lr, double momentum, bool nesterov) {
  check_grad("sgd_update", var, grad);
  Tensor g;
  if (fusable(var, grad, g)) {
    Tensor w = var.value_for_update();
    Tensor mt = slot_for_update(m);
    if (backend::backend_for(w.device()).sgd_update(w, m ? &mt : nullptr, g, lr, momentum, nesterov)) return;
  }
  autodiff::Pause pause;
  const Tensor l = host_scalar_tensor(lr, g.dtype(), g.device());
  if (!m) {
    var.assign_sub(g * l);
    return;
  }
  m->assign(m->read_value_untracked() * momentum - g * l);
  if (nesterov) var.assign_add(m->read_value_untracked() * momentum - g * l);
  else var.assign_add(m->read_value_untracked());
}

void rmsprop_update(Variable& var, Variable& v, Variable* mom, Variable* avg, const Tensor& grad, HostScalar lr,
                    double rho, double momentum, double epsilon) {
  check_grad("rmsprop_update", var, grad);
  Tensor g;
  if (fusable(var, grad, g)) {
    Tensor w = var.value_for_update(), vt = v.value_for_update();
    Tensor mt = slot_for_update(mom), at = slot_for_update(avg);
    if (backend::backend_for(w.device()).rmsprop_update(w, vt, mom ? &mt : nullptr, avg ? &at : nullptr, g, lr, rho,
                                                        momentum, epsilon))
      return;
  }
  autodiff::Pause pause;
  const Tensor l = host_scalar_tensor(lr, g.dtype(), g.device());
  v.assign(v.read_value_untracked() * rho + square(g) * (1 - rho));
  Tensor denominator;
  if (avg) {
    avg->assign(avg->read_value_untracked() * rho + g * (1 - rho));
    denominator = v.read_value_untracked() - square(avg->read_value_untracked()) + epsilon;
  } else {
    denominator = v.read_value_untracked() + epsilon;
  }
  Tensor increment = g * l / sqrt(denominator);
  if (mom) {
    mom->assign(mom->read_value_untracked() * momentum + increment);
    var.assign_sub(mom->read_value_untracked());
  } else {
    var.assign_sub(increment);
  }
}

}  // namespace kiln::fused
