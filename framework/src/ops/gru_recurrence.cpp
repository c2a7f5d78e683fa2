// The fused GRU recurrence (gates z, r, h; Keras 3's formulas), both reset_after forms.
//   reset_after:  inner = h · U + b_r;  hh = act(x_h + r * inner_h)
//   else:         inner = h · U_zr;     hh = act(x_h + (r * h) · U_h)
//   z, r = recurrent_activation(x_{z,r} + inner_{z,r});  h' = z * h + (1 - z) * hh
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "recurrence_util.h"

namespace kiln::ops::recurrence_steps {

// Saved per step: {h_prev, pre_z, pre_r, pre_h, z, r, hh, rh} where rh is
// inner_h (reset_after) or r * h_prev (reset before).
std::vector<Tensor> gru_forward(const Run& r, Saved& saved) {
  const bool after = r.o.reset_after;
  const std::string &act = r.o.activation, &ract = r.o.recurrent_activation;
  std::vector<Tensor> uk;  // U_zr, U_h for the reset-before form
  if (!after) uk = split(r.kernel, std::vector<int64_t>{2 * r.units, r.units}, 1);
  Tensor h = r.states[0];
  std::vector<Tensor> outs;
  for (int64_t t = 0; t < r.steps; ++t) {
    std::vector<Tensor> x = split(r.projected[{Slice(), t}], 3, 1);
    Tensor inner = after ? matmul(h, r.kernel) : matmul(h, uk[0]);
    if (after && r.bias.defined()) inner = bias_add(inner, r.bias);
    std::vector<Tensor> in = split(inner, after ? 3 : 2, 1);
    const Tensor pz = x[0] + in[0], pr = x[1] + in[1];
    const Tensor z = activate(ract, pz), rr = activate(ract, pr);
    const Tensor rh = after ? in[2] : rr * h;
    const Tensor ph = after ? x[2] + rr * rh : x[2] + matmul(rh, uk[1]);
    const Tensor hh = activate(act, ph);
    const Tensor fresh = z * h + (1.0 - z) * hh;
    const Tensor keep = r.keep(t);
    saved.push_back({h, pz, pr, ph, z, rr, hh, rh});
    outs.push_back(masked_output(r, keep, fresh, h));
    h = masked_state(keep, fresh, h);
  }
  return {stack(outs, 1), h};
}

std::vector<Tensor> gru_backward(const Run& r, const Saved& s, const Tensor& d_out, std::vector<Tensor> ds) {
  const bool after = r.o.reset_after;
  const std::string &act = r.o.activation, &ract = r.o.recurrent_activation;
  std::vector<Tensor> uk;
  if (!after) uk = split(r.kernel, std::vector<int64_t>{2 * r.units, r.units}, 1);
  const std::size_t n = static_cast<std::size_t>(r.steps);
  std::vector<Tensor> d_x(n), d_inner(n), h_prev(n), rh_all(n), d_ph(n);
  Tensor dh = ds[0];
  for (int64_t t = r.steps - 1; t >= 0; --t) {
    const auto& st = s[static_cast<std::size_t>(t)];
    MaskedGrad g = split_h_grad(r, r.keep(t), dh, d_out[{Slice(), t}]);
    // h' = z * h + (1 - z) * hh
    const Tensor dz = g.fresh * (st[0] - st[6]);
    const Tensor dph = g.fresh * (1.0 - st[4]) * activation_grad(act, st[3], st[6]);
    const Tensor dpz = dz * activation_grad(ract, st[1], st[4]);
    Tensor dpr, dh_prev = g.fresh * st[4];
    if (after) {
      dpr = dph * st[7] * activation_grad(ract, st[2], st[5]);
      const Tensor di = concat({dpz, dpr, dph * st[5]}, 1);  // d inner
      d_inner[static_cast<std::size_t>(t)] = di;
      dh_prev = dh_prev + matmul(di, r.kernel, false, true);
    } else {
      const Tensor d_rh = matmul(dph, uk[1], false, true);  // d (r * h)
      dpr = d_rh * st[0] * activation_grad(ract, st[2], st[5]);
      const Tensor di = concat({dpz, dpr}, 1);
      d_inner[static_cast<std::size_t>(t)] = di;
      dh_prev = dh_prev + d_rh * st[5] + matmul(di, uk[0], false, true);
    }
    d_x[static_cast<std::size_t>(t)] = concat({dpz, dpr, dph}, 1);
    d_ph[static_cast<std::size_t>(t)] = dph;
    h_prev[static_cast<std::size_t>(t)] = st[0];
    rh_all[static_cast<std::size_t>(t)] = st[7];
    dh = add_defined(dh_prev, g.carry);
  }
  const int64_t bt = r.batch * r.steps, u = r.units;
  const Tensor hp = reshape(stack(h_prev, 1), {bt, u});
  const Tensor di_all = reshape(stack(d_inner, 1), {bt, after ? 3 * u : 2 * u});
  Tensor dk = matmul(hp, di_all, true, false);
  if (!after) dk = concat({dk, matmul(reshape(stack(rh_all, 1), {bt, u}), reshape(stack(d_ph, 1), {bt, u}), true, false)}, 1);
  const Tensor db = after && r.bias.defined() ? sum(di_all, Axes{0}) : Tensor();
  return {stack(d_x, 1), dk, db, dh};
}

}  // namespace kiln::ops::recurrence_steps
