// Fused recurrences: SimpleRNN and LSTM here, GRU in gru_recurrence.cpp.
// The forward loop runs with recording paused and keeps each step's gates;
// the gradient rule walks the steps backwards (BPTT): per step one matmul for
// d h_prev, and after the loop one matmul for d recurrent_kernel over all steps.
#include "kiln/ops/recurrent_ops.h"

#include <optional>

#include "backend/portable_trace.h"
#include "backend/recording.h"
#include "core/op_log.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "kiln/ops/reduce_ops.h"
#include "op_util.h"
#include "recurrence_util.h"
#include "ops/half_compute.h"

namespace kiln {
namespace ops::recurrence_steps {

Tensor activate(const std::string& n, const Tensor& x) {
  if (n == "tanh") return kiln::tanh(x);
  if (n == "sigmoid") return sigmoid(x);
  if (n == "relu") return relu(x);
  if (n == "hard_sigmoid") return clip(x + 3.0, 0.0, 6.0) / 6.0;  // relu6(x + 3) / 6, as the activation
  return x;  // linear
}

Tensor activation_grad(const std::string& n, const Tensor& pre, const Tensor& y) {
  if (n == "tanh") return 1.0 - y * y;
  if (n == "sigmoid") return y * (1.0 - y);
  if (n == "relu") return cast(pre > 0.0, pre.dtype());
  if (n == "hard_sigmoid") return cast(logical_and(pre > -3.0, pre < 3.0), pre.dtype()) / 6.0;
  return ones_like(pre);
}

Tensor Run::keep(int64_t t) const { return mask.defined() ? expand_dims(mask[{Slice(), t}], 1) : Tensor(); }

Tensor masked_output(const Run& r, const Tensor& keep, const Tensor& fresh, const Tensor& h_prev) {
  if (!keep.defined()) return fresh;
  return where(keep, fresh, r.o.zero_output_for_mask ? zeros_like(fresh) : h_prev);
}
Tensor masked_state(const Tensor& keep, const Tensor& fresh, const Tensor& old) {
  return keep.defined() ? where(keep, fresh, old) : fresh;
}

Tensor add_defined(const Tensor& a, const Tensor& b) {
  return !a.defined() ? b : !b.defined() ? a : a + b;
}

MaskedGrad split_h_grad(const Run& r, const Tensor& keep, const Tensor& dh, const Tensor& dout) {
  if (!keep.defined()) return {dh + dout, Tensor()};
  const Tensor kept = cast(keep, dh.dtype()), dropped = 1.0 - kept;
  // The output of a masked step is the previous h (lax.scan's rule) unless zero_output_for_mask.
  Tensor carry = r.o.zero_output_for_mask ? dh * dropped : (dh + dout) * dropped;
  return {(dh + dout) * kept, carry};
}

MaskedGrad split_state_grad(const Tensor& keep, const Tensor& ds) {
  if (!keep.defined()) return {ds, Tensor()};
  const Tensor kept = cast(keep, ds.dtype());
  return {ds * kept, ds * (1.0 - kept)};
}

namespace {

// ---- SimpleRNN: h' = act(xp + h · U); saved per step {h_prev, pre, h'} ----
std::vector<Tensor> simple_forward(const Run& r, Saved& saved) {
  Tensor h = r.states[0];
  std::vector<Tensor> outs;
  for (int64_t t = 0; t < r.steps; ++t) {
    const Tensor pre = r.projected[{Slice(), t}] + matmul(h, r.kernel);
    const Tensor fresh = activate(r.o.activation, pre);
    const Tensor keep = r.keep(t);
    saved.push_back({h, pre, fresh});
    outs.push_back(masked_output(r, keep, fresh, h));
    h = masked_state(keep, fresh, h);
  }
  return {stack(outs, 1), h};
}

std::vector<Tensor> simple_backward(const Run& r, const Saved& s, const Tensor& d_out, std::vector<Tensor> ds) {
  std::vector<Tensor> d_pre(static_cast<std::size_t>(r.steps)), h_prev(d_pre.size());
  Tensor dh = ds[0];
  for (int64_t t = r.steps - 1; t >= 0; --t) {
    const auto& st = s[static_cast<std::size_t>(t)];
    MaskedGrad g = split_h_grad(r, r.keep(t), dh, d_out[{Slice(), t}]);
    const Tensor dp = g.fresh * activation_grad(r.o.activation, st[1], st[2]);
    d_pre[static_cast<std::size_t>(t)] = dp;
    h_prev[static_cast<std::size_t>(t)] = st[0];
    dh = add_defined(matmul(dp, r.kernel, false, true), g.carry);
  }
  const Tensor dp_all = stack(d_pre, 1);  // (batch, time, units)
  const Tensor dk = matmul(reshape(stack(h_prev, 1), {r.batch * r.steps, r.units}),
                           reshape(dp_all, {r.batch * r.steps, r.units}), true, false);
  return {dp_all, dk, Tensor(), dh};
}

// ---- LSTM: gates i, f, g, o; saved per step {h_prev, c_prev, pre_i, pre_f, pre_g, pre_o, i, f, g, o, c', act(c')} ----
std::vector<Tensor> lstm_forward(const Run& r, Saved& saved) {
  Tensor h = r.states[0], c = r.states[1];
  const std::string &act = r.o.activation, &ract = r.o.recurrent_activation;
  std::vector<Tensor> outs;
  for (int64_t t = 0; t < r.steps; ++t) {
    std::vector<Tensor> p = split(r.projected[{Slice(), t}] + matmul(h, r.kernel), 4, 1);
    const Tensor i = activate(ract, p[0]), f = activate(ract, p[1]), g = activate(act, p[2]), o = activate(ract, p[3]);
    const Tensor c_new = f * c + i * g;
    const Tensor a = activate(act, c_new);
    const Tensor h_new = o * a;
    const Tensor keep = r.keep(t);
    saved.push_back({h, c, p[0], p[1], p[2], p[3], i, f, g, o, c_new, a});
    outs.push_back(masked_output(r, keep, h_new, h));
    h = masked_state(keep, h_new, h);
    c = masked_state(keep, c_new, c);
  }
  return {stack(outs, 1), h, c};
}

std::vector<Tensor> lstm_backward(const Run& r, const Saved& s, const Tensor& d_out, std::vector<Tensor> ds) {
  const std::string &act = r.o.activation, &ract = r.o.recurrent_activation;
  std::vector<Tensor> d_pre(static_cast<std::size_t>(r.steps)), h_prev(d_pre.size());
  Tensor dh = ds[0], dc = ds[1];
  for (int64_t t = r.steps - 1; t >= 0; --t) {
    const auto& st = s[static_cast<std::size_t>(t)];
    const Tensor keep = r.keep(t);
    MaskedGrad gh = split_h_grad(r, keep, dh, d_out[{Slice(), t}]);
    MaskedGrad gc = split_state_grad(keep, dc);
    // h' = o * a, a = act(c'), c' = f * c + i * g
    const Tensor dc_new = gc.fresh + gh.fresh * st[9] * activation_grad(act, st[10], st[11]);
    const Tensor dz = concat({dc_new * st[8] * activation_grad(ract, st[2], st[6]),
                              dc_new * st[1] * activation_grad(ract, st[3], st[7]),
                              dc_new * st[6] * activation_grad(act, st[4], st[8]),
                              gh.fresh * st[11] * activation_grad(ract, st[5], st[9])},
                             1);
    d_pre[static_cast<std::size_t>(t)] = dz;
    h_prev[static_cast<std::size_t>(t)] = st[0];
    dh = add_defined(matmul(dz, r.kernel, false, true), gh.carry);
    dc = add_defined(dc_new * st[7], gc.carry);
  }
  const Tensor dz_all = stack(d_pre, 1);  // (batch, time, 4·units)
  const Tensor dk = matmul(reshape(stack(h_prev, 1), {r.batch * r.steps, r.units}),
                           reshape(dz_all, {r.batch * r.steps, 4 * r.units}), true, false);
  return {dz_all, dk, Tensor(), dh, dc};
}

void check_run(const Run& r, int64_t gates) {
  const std::size_t n_states = r.o.kind == RecurrentKind::lstm ? 2 : 1;
  if (r.projected.rank() != 3 || r.kernel.rank() != 2 || r.states.size() != n_states ||
      r.kernel.shape()[1] != gates * r.units || r.projected.shape()[2] != gates * r.units)
    throw ShapeError("recurrence: expected projected (batch, time, " + std::to_string(gates) +
                     "·units) and recurrent_kernel (units, " + std::to_string(gates) + "·units), received " +
                     r.projected.shape().to_string() + " and " + r.kernel.shape().to_string() + " with " +
                     std::to_string(r.states.size()) + " states");
  for (const auto& s : r.states)
    if (!(s.shape() == Shape{r.batch, r.units}))
      throw ShapeError("recurrence: each state must have shape " + Shape{r.batch, r.units}.to_string() +
                       ", received " + s.shape().to_string());
}

backend::RecurrenceActivation activation_number(const std::string& n) {
  using A = backend::RecurrenceActivation;
  return n == "tanh" ? A::tanh : n == "sigmoid" ? A::sigmoid : n == "hard_sigmoid" ? A::hard_sigmoid
         : n == "relu" ? A::relu : A::linear;
}

/// The backend's fused kernel's parameters, or nullopt where it has none for this call
/// (another device, an integer dtype, operands of mixed dtypes or devices, a trace for export).
std::optional<backend::RecurrenceParams> fused_params(const Run& r) {
  // An exporter writes a recurrence ONNX cannot express as its loop's ops.
  if (backend::portable_trace()) return std::nullopt;
  backend::RecurrenceParams p;
  p.kind = static_cast<int>(r.o.kind);
  p.activation = activation_number(r.o.activation);
  p.recurrent_activation = activation_number(r.o.recurrent_activation);
  p.reset_after = r.o.reset_after;
  p.zero_output_for_mask = r.o.zero_output_for_mask;
  p.has_bias = r.bias.defined();
  // Only GRU's reset_after form has a recurrent bias; the composed loop ignores one given elsewhere.
  if (p.has_bias && !(r.o.kind == RecurrentKind::gru && r.o.reset_after)) return std::nullopt;
  p.has_mask = r.mask.defined();
  p.batch = r.batch, p.steps = r.steps, p.units = r.units;
  std::vector<Tensor> operands{r.kernel};
  if (p.has_bias) operands.push_back(r.bias);
  operands.insert(operands.end(), r.states.begin(), r.states.end());
  for (const auto& t : operands)
    if (t.dtype() != r.projected.dtype() || t.device() != r.projected.device()) return std::nullopt;
  if (p.has_mask && r.mask.device() != r.projected.device()) return std::nullopt;
  if (p.has_bias && !(r.bias.shape() == Shape{r.kernel.shape()[1]})) return std::nullopt;
  if (!be(r.projected).has_recurrence(p, r.projected.dtype())) return std::nullopt;
  return p;
}

/// {outputs, final states...}; `saved` receives what the backward kernel reads.
std::vector<Tensor> fused_forward(const Run& r, const backend::RecurrenceParams& p, Tensor& saved) {
  std::vector<Tensor> in{r.projected, r.kernel};
  if (p.has_bias) in.push_back(r.bias);
  in.insert(in.end(), r.states.begin(), r.states.end());
  if (p.has_mask) in.push_back(r.mask);
  const DType dt = r.projected.dtype();
  const Device dev = r.projected.device();
  std::vector<Tensor> out{Tensor::empty({r.batch, r.steps, r.units}, dt, dev)};
  for (std::size_t i = 0; i < r.states.size(); ++i) out.push_back(Tensor::empty({r.batch, r.units}, dt, dev));
  out.push_back(Tensor::empty({r.batch, r.steps, p.saved_width()}, dt, dev));
  be(r.projected).recurrence_forward(p, in, out);
  saved = out.back();
  out.pop_back();
  return out;
}

/// {d projected, d kernel, d bias (undefined without one), d initial states...}
std::vector<Tensor> fused_backward(const Run& r, const backend::RecurrenceParams& p, const Tensor& saved,
                                   const Tensor& d_out, const std::vector<Tensor>& ds) {
  std::vector<Tensor> in{d_out};
  in.insert(in.end(), ds.begin(), ds.end());
  in.push_back(r.kernel);
  if (p.has_mask) in.push_back(r.mask);
  in.push_back(saved);
  const DType dt = r.projected.dtype();
  const Device dev = r.projected.device();
  std::vector<Tensor> out{Tensor::empty(r.projected.shape(), dt, dev), Tensor::empty(r.kernel.shape(), dt, dev)};
  if (p.has_bias) out.push_back(Tensor::empty(r.bias.shape(), dt, dev));
  for (const auto& s : r.states) out.push_back(Tensor::empty(s.shape(), dt, dev));
  be(r.projected).recurrence_backward(p, in, out);
  if (!p.has_bias) out.insert(out.begin() + 2, Tensor());
  return out;
}

std::vector<Tensor> composed_forward(const Run& r, Saved& saved) {
  return r.o.kind == RecurrentKind::lstm ? lstm_forward(r, saved)
         : r.o.kind == RecurrentKind::gru ? gru_forward(r, saved)
                                          : simple_forward(r, saved);
}

std::vector<Tensor> composed_backward(const Run& r, const Saved& saved, const Tensor& d_out, const std::vector<Tensor>& ds) {
  return r.o.kind == RecurrentKind::lstm ? lstm_backward(r, saved, d_out, ds)
         : r.o.kind == RecurrentKind::gru ? gru_backward(r, saved, d_out, ds)
                                          : simple_backward(r, saved, d_out, ds);
}

}  // namespace
}  // namespace ops::recurrence_steps

bool recurrence_supports(const std::string& a) {
  return a == "tanh" || a == "sigmoid" || a == "hard_sigmoid" || a == "relu" || a == "linear";
}

std::vector<Tensor> recurrence(const Tensor& projected, const Tensor& kernel, const Tensor& bias,
                               const std::vector<Tensor>& states, const Tensor& mask, const RecurrenceOptions& o) {
  KILN_LOG_OP(recurrence, projected, kernel, bias, states, mask, o);
  KILN_HALF_IN_FLOAT32(recurrence, projected, kernel, bias, states, mask, o);
  using namespace ops::recurrence_steps;
  if (!recurrence_supports(o.activation) || !recurrence_supports(o.recurrent_activation))
    throw ValueError("recurrence: unsupported activation '" + o.activation + "' or '" + o.recurrent_activation + "'");
  auto run = std::make_shared<Run>(Run{projected, kernel, bias, states, mask.defined() ? cast(mask, DType::bool_) : Tensor(),
                                       o, projected.shape()[0], projected.shape()[1], kernel.shape()[0]});
  const int64_t gates = o.kind == RecurrentKind::lstm ? 4 : o.kind == RecurrentKind::gru ? 3 : 1;
  check_run(*run, gates);
  const std::optional<backend::RecurrenceParams> fused = fused_params(*run);
  auto saved = std::make_shared<Saved>();
  auto workspace = std::make_shared<Tensor>();  // the fused kernel's saved values
  std::vector<Tensor> outs;
  {
    autodiff::Pause pause;  // one node for the whole loop
    // A trace marks the loop's ops as one recurrence, which exporters write as ONNX's RNN, LSTM or GRU op.
    backend::NodeParams p;
    p.axis = static_cast<int>(o.kind);
    p.names = {o.activation, o.recurrent_activation};
    p.flag_a = o.reset_after;
    p.flag_b = o.zero_output_for_mask;
    p.has_gamma = bias.defined();
    p.has_beta = run->mask.defined();
    std::vector<Tensor> ins{projected, kernel};
    if (bias.defined()) ins.push_back(bias);
    ins.insert(ins.end(), states.begin(), states.end());
    if (run->mask.defined()) ins.push_back(run->mask);
    backend::CompositeScope composite("Recurrence", ins, p);
    outs = fused ? fused_forward(*run, *fused, *workspace) : composed_forward(*run, *saved);
    composite.finish(outs);
  }
  if (!autodiff::active() || run->steps == 0) return outs;
  std::vector<Tensor> inputs{projected, kernel};
  if (bias.defined()) inputs.push_back(bias);
  inputs.insert(inputs.end(), states.begin(), states.end());
  autodiff::record("Recurrence", inputs, outs, [run, saved, fused, workspace](const autodiff::Grads& dy,
                                                                               const autodiff::Needs&) {
    std::vector<Tensor> ds;
    for (std::size_t i = 1; i < dy.size(); ++i) ds.push_back(dy[i].defined() ? dy[i] : zeros_like(run->states[i - 1]));
    const Tensor d_out = dy[0].defined() ? dy[0] : zeros({run->batch, run->steps, run->units}, run->projected.dtype());
    std::vector<Tensor> g;
    if (fused && !autodiff::active()) {
      g = fused_backward(*run, *fused, *workspace, d_out, ds);
    } else {
      // Under an outer tape (higher-order gradients) the backward pass is made of differentiable ops,
      // which read the per-step values of the composed forward pass.
      if (fused && saved->empty()) {
        autodiff::Pause pause;
        composed_forward(*run, *saved);
      }
      g = composed_backward(*run, *saved, d_out, ds);
    }
    if (!run->bias.defined()) g.erase(g.begin() + 2);  // {d projected, d kernel, [d bias], d states...}
    return g;
  });
  return outs;
}

}  // namespace kiln
