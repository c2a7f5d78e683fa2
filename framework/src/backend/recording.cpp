// The recording decorator: every Backend call is appended to the active
// Recording as a node over the same tensors and parameters, then run.
#include "backend/recording.h"

#include "backend/op_types.h"
#include "core/tracing.h"

#include <map>
#include <optional>

namespace kiln::backend {

namespace {

std::optional<Tensor> opt(const Tensor* t) { return t ? std::optional<Tensor>(*t) : std::nullopt; }
const Tensor* ptr(const std::optional<Tensor>& t) { return t ? &*t : nullptr; }
Tensor* ptr(std::optional<Tensor>& t) { return t ? &*t : nullptr; }
std::vector<Tensor> some(std::initializer_list<const Tensor*> ts) {
  std::vector<Tensor> out;
  for (const Tensor* t : ts)
    if (t) out.push_back(*t);
  return out;
}

using Ts = std::vector<Tensor>;

class RecordingBackend final : public Backend {
 public:
  RecordingBackend(Backend& real, Recording& rec, bool execute) : r_(real), rec_(rec), execute_(execute) {}
  Device device() const override { return r_.device(); }
  std::shared_ptr<Storage> allocate(std::size_t nbytes) override {
    auto s = r_.allocate(nbytes);
    rec_.note_allocation(s);
    return s;
  }

  void fill(Tensor& out, double value) override {
    run("Fill", {}, {out}, [&r = r_, out, value]() mutable { r.fill(out, value); }).params.value = value;
  }
  void cast(const Tensor& x, Tensor& out) override {
    run("Cast", {x}, {out}, [&r = r_, x, out]() mutable { r.cast(x, out); });
  }
  void strided_copy(const Tensor& src, int64_t so, const std::vector<int64_t>& ss, Tensor& dst, int64_t doff,
                    const std::vector<int64_t>& ds, const Shape& shape, bool acc) override {
    // An accumulating copy also reads what it adds to.
    Node& n = run(acc ? "StridedAdd" : "StridedCopy", acc ? Ts{src, dst} : Ts{src}, {dst},
                  [&r = r_, src, so, ss, dst, doff, ds, shape, acc]() mutable {
                    r.strided_copy(src, so, ss, dst, doff, ds, shape, acc);
                  });
    n.params.src_offset = so;
    n.params.src_strides = ss;
    n.params.dst_offset = doff;
    n.params.dst_strides = ds;
    n.params.copy_shape = shape;
    n.params.flag_a = acc;
  }
  void unary(UnaryOp op, const Tensor& x, Tensor& out) override {
    run(op_type(op), {x}, {out}, [&r = r_, op, x, out]() mutable { r.unary(op, x, out); }).unary = static_cast<int>(op);
  }
  void binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) override {
    run(op_type(op), {a, b}, {out}, [&r = r_, op, a, b, out]() mutable { r.binary(op, a, b, out); }).binary =
        static_cast<int>(op);
  }
  void reduce(ReduceOp op, const Tensor& x, Tensor& out) override {
    run(op_type(op), {x}, {out}, [&r = r_, op, x, out]() mutable { r.reduce(op, x, out); });
  }
  void arg_reduce(bool is_max, const Tensor& x, int axis, Tensor& out) override {
    run(is_max ? "ArgMax" : "ArgMin", {x}, {out},
        [&r = r_, is_max, x, axis, out]() mutable { r.arg_reduce(is_max, x, axis, out); })
        .params.axis = axis;
  }
  void where(const Tensor& c, const Tensor& x, const Tensor& y, Tensor& out) override {
    run("SelectV2", {c, x, y}, {out}, [&r = r_, c, x, y, out]() mutable { r.where(c, x, y, out); });
  }
  void gather(const Tensor& params, const Tensor& indices, int axis, Tensor& out) override {
    run("GatherV2", {params, indices}, {out},
        [&r = r_, params, indices, axis, out]() mutable { r.gather(params, indices, axis, out); })
        .params.axis = axis;
  }
  void scatter_add(Tensor& out, const Tensor& indices, const Tensor& updates, int axis) override {
    run("ScatterAdd", {out, indices, updates}, {out},
        [&r = r_, out, indices, updates, axis]() mutable { r.scatter_add(out, indices, updates, axis); })
        .params.axis = axis;
  }
  void one_hot(const Tensor& indices, int64_t depth, Tensor& out) override {
    run("OneHot", {indices}, {out}, [&r = r_, indices, depth, out]() mutable { r.one_hot(indices, depth, out); })
        .params.depth = depth;
  }
  void matmul(const Tensor& a, const Tensor& b, Tensor& out, bool ta, bool tb) override {
    // Ops hand every product over as a batch; a batch of one is a plain MatMul.
    const bool batched = (a.rank() > 2 && a.shape()[0] > 1) || (b.rank() > 2 && b.shape()[0] > 1);
    Node& n = run(batched ? "BatchMatMulV2" : "MatMul", {a, b}, {out},
                  [&r = r_, a, b, out, ta, tb]() mutable { r.matmul(a, b, out, ta, tb); });
    n.params.flag_a = ta;
    n.params.flag_b = tb;
  }
  void softmax(const Tensor& x, int axis, bool log, Tensor& out) override {
    run(log ? "LogSoftmax" : "Softmax", {x}, {out}, [&r = r_, x, axis, log, out]() mutable { r.softmax(x, axis, log, out); })
        .params.axis = axis;
  }
  void abs_max_quantize(const Tensor& x, double lo, double hi, double eps, Tensor& q, Tensor& scale) override {
    run("AbsMaxQuantize", {x}, {q, scale},
        [&r = r_, x, lo, hi, eps, q, scale]() mutable { r.abs_max_quantize(x, lo, hi, eps, q, scale); });
  }
  bool int8_matmul_dequantize(const Tensor& a, const Tensor& b, const Tensor& rs, const Tensor& cs, const Tensor* bias,
                              bool relu, Tensor& out) override {
    if (execute_ ? !r_.int8_matmul_dequantize(a, b, rs, cs, bias, relu, out) : !r_.has_fused(Fused::int8_matmul, 0))
      return false;
    Node& n = add("Int8MatMulDequantize", some({&a, &b, &rs, &cs, bias}), {out},
                  [&r = r_, a, b, rs, cs, bias = opt(bias), relu, out]() mutable {
                    r.int8_matmul_dequantize(a, b, rs, cs, ptr(bias), relu, out);
                  });
    n.params.flag_a = relu;
    return true;
  }
  bool attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask, const AttentionDims& d,
                 Tensor& out) override {
    if (execute_ ? !r_.attention(q, k, v, mask, d, out) : !r_.has_fused(Fused::attention, 0)) return false;
    add("DotProductAttention", some({&q, &k, &v, mask}), {out},
        [&r = r_, q, k, v, mask = opt(mask), d, out]() mutable { r.attention(q, k, v, ptr(mask), d, out); })
        .params.value = d.scale;
    return true;
  }
  void sparse_xent(const Tensor& labels, const Tensor& logits, Tensor& loss, Tensor& probs) override {
    run("SparseSoftmaxCrossEntropyWithLogits", {labels, logits}, {loss, probs},
        [&r = r_, labels, logits, loss, probs]() mutable { r.sparse_xent(labels, logits, loss, probs); });
  }
  void conv2d(const Tensor& x, const Tensor& w, const Conv2DParams& p, Tensor& out) override {
    run("Conv2D", {x, w}, {out}, [&r = r_, x, w, p, out]() mutable { r.conv2d(x, w, p, out); }).params.conv = p;
  }
  void conv2d_backward_input(const Tensor& dy, const Tensor& w, const Conv2DParams& p, Tensor& dx) override {
    run("Conv2DBackpropInput", {dy, w}, {dx}, [&r = r_, dy, w, p, dx]() mutable { r.conv2d_backward_input(dy, w, p, dx); });
  }
  void conv2d_backward_filter(const Tensor& x, const Tensor& dy, const Conv2DParams& p, Tensor& dw) override {
    run("Conv2DBackpropFilter", {x, dy}, {dw},
        [&r = r_, x, dy, p, dw]() mutable { r.conv2d_backward_filter(x, dy, p, dw); });
  }
  bool has_depthwise_conv2d(DType dtype) const override { return r_.has_depthwise_conv2d(dtype); }
  void depthwise_conv2d(const Tensor& x, const Tensor& w, const Conv2DParams& p, Tensor& out) override {
    run("DepthwiseConv2dNative", {x, w}, {out}, [&r = r_, x, w, p, out]() mutable { r.depthwise_conv2d(x, w, p, out); })
        .params.conv = p;
  }
  void depthwise_conv2d_backward_input(const Tensor& dy, const Tensor& w, const Conv2DParams& p, Tensor& dx) override {
    run("DepthwiseConv2dNativeBackpropInput", {dy, w}, {dx},
        [&r = r_, dy, w, p, dx]() mutable { r.depthwise_conv2d_backward_input(dy, w, p, dx); })
        .params.conv = p;
  }
  void depthwise_conv2d_backward_filter(const Tensor& x, const Tensor& dy, const Conv2DParams& p, Tensor& dw) override {
    run("DepthwiseConv2dNativeBackpropFilter", {x, dy}, {dw},
        [&r = r_, x, dy, p, dw]() mutable { r.depthwise_conv2d_backward_filter(x, dy, p, dw); })
        .params.conv = p;
  }
  bool has_fft(DType dtype) const override { return r_.has_fft(dtype); }
  void fft(const Tensor& re, const Tensor& im, bool inverse, Tensor& out_re, Tensor& out_im) override {
    run(inverse ? "IFFT" : "FFT", {re, im}, {out_re, out_im},
        [&r = r_, re, im, inverse, out_re, out_im]() mutable { r.fft(re, im, inverse, out_re, out_im); });
  }
  void max_pool2d(const Tensor& x, const Pool2DParams& p, Tensor& out, Tensor& argmax) override {
    run("MaxPoolWithArgmax", {x}, {out, argmax}, [&r = r_, x, p, out, argmax]() mutable { r.max_pool2d(x, p, out, argmax); })
        .params.pool = p;
  }
  void max_pool2d_backward(const Tensor& dy, const Tensor& argmax, const Pool2DParams& p, Tensor& dx) override {
    run("MaxPoolGradWithArgmax", {dy, argmax}, {dx},
        [&r = r_, dy, argmax, p, dx]() mutable { r.max_pool2d_backward(dy, argmax, p, dx); })
        .params.pool = p;
  }
  void avg_pool2d(const Tensor& x, const Pool2DParams& p, Tensor& out) override {
    run("AvgPool", {x}, {out}, [&r = r_, x, p, out]() mutable { r.avg_pool2d(x, p, out); }).params.pool = p;
  }
  void avg_pool2d_backward(const Tensor& dy, const Pool2DParams& p, Tensor& dx) override {
    run("AvgPoolGrad", {dy}, {dx}, [&r = r_, dy, p, dx]() mutable { r.avg_pool2d_backward(dy, p, dx); });
  }
  void dropout(const Tensor& x, double rate, uint64_t seed, Tensor& out, Tensor& mask) override {
    run("Dropout", {x}, {out, mask}, [&r = r_, x, rate, seed, out, mask]() mutable { r.dropout(x, rate, seed, out, mask); })
        .params.value = rate;
  }
  void copy_from(const Tensor& src, Tensor& dst) override {
    run("Identity", {src}, {dst}, [&r = r_, src, dst]() mutable { r.copy_from(src, dst); });
  }
  void bias_add(const Tensor& x, const Tensor& bias, bool relu, Tensor& out) override {
    run(relu ? "BiasAddRelu" : "BiasAdd", {x, bias}, {out},
        [&r = r_, x, bias, relu, out]() mutable { r.bias_add(x, bias, relu, out); })
        .params.flag_a = relu;
  }
  void bias_add_backward(const Tensor& dy, const Tensor& y, bool relu, Tensor& dx, Tensor& db) override {
    run("BiasAddGrad", {dy, y}, relu ? Ts{dx, db} : Ts{db},
        [&r = r_, dy, y, relu, dx, db]() mutable { r.bias_add_backward(dy, y, relu, dx, db); });
  }
  void conv2d_bias(const Tensor& x, const Tensor& w, const Tensor& bias, bool relu, const Conv2DParams& p,
                   Tensor& out) override {
    // A backend may answer with another buffer (the composed default does);
    // the result then goes into `out`'s, which later calls read.
    Node& n = run(relu ? "Conv2DBiasRelu" : "Conv2DBias", {x, w, bias}, {out}, [&r = r_, x, w, bias, relu, p, out]() mutable {
      Tensor o = out;
      r.conv2d_bias(x, w, bias, relu, p, o);
      if (!o.same_as(out)) r.copy_from(o, out);
    });
    n.params.conv = p;
    n.params.flag_a = relu;
  }
  bool batch_norm_training(const Tensor& x, const Tensor* gamma, const Tensor* beta, double eps, Tensor& y,
                           Tensor& mean, Tensor& var) override {
    if (execute_ && !r_.batch_norm_training(x, gamma, beta, eps, y, mean, var)) return false;
    if (!execute_ && !r_.has_fused(Fused::batch_norm, eps)) return false;
    add("FusedBatchNormV3", some({&x, gamma, beta}), {y, mean, var},
        [&r = r_, x, g = opt(gamma), b = opt(beta), eps, y, mean, var]() mutable {
          r.batch_norm_training(x, ptr(g), ptr(b), eps, y, mean, var);
        });
    return true;
  }
  bool batch_norm_training_backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& var,
                                    const Tensor* gamma, double eps, Tensor& dx, Tensor* dgamma,
                                    Tensor* dbeta) override {
    if (execute_ && !r_.batch_norm_training_backward(dy, x, mean, var, gamma, eps, dx, dgamma, dbeta)) return false;
    if (!execute_ && !r_.has_fused(Fused::batch_norm, eps)) return false;
    add("FusedBatchNormGradV3", some({&dy, &x, &mean, &var, gamma}), some({&dx, dgamma, dbeta}),
        [&r = r_, dy, x, mean, var, g = opt(gamma), eps, dx, dg = opt(dgamma), db = opt(dbeta)]() mutable {
          r.batch_norm_training_backward(dy, x, mean, var, ptr(g), eps, dx, ptr(dg), ptr(db));
        });
    return true;
  }
  bool group_norm(const Tensor& x, const Tensor* gamma, const Tensor* beta, const GroupNormDims& d, double eps,
                  Tensor& y, Tensor& mean, Tensor& rstd) override {
    if (execute_ ? !r_.group_norm(x, gamma, beta, d, eps, y, mean, rstd) : !r_.has_fused(Fused::group_norm, eps))
      return false;
    add("GroupNorm", some({&x, gamma, beta}), {y, mean, rstd},
        [&r = r_, x, g = opt(gamma), b = opt(beta), d, eps, y, mean, rstd]() mutable {
          r.group_norm(x, ptr(g), ptr(b), d, eps, y, mean, rstd);
        });
    return true;
  }
  bool group_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                           const Tensor* gamma, const GroupNormDims& d, Tensor& dx, Tensor* dgamma,
                           Tensor* dbeta) override {
    if (execute_ ? !r_.group_norm_backward(dy, x, mean, rstd, gamma, d, dx, dgamma, dbeta)
                 : !r_.has_fused(Fused::group_norm, 0))
      return false;
    add("GroupNormGrad", some({&dy, &x, &mean, &rstd, gamma}), some({&dx, dgamma, dbeta}),
        [&r = r_, dy, x, mean, rstd, g = opt(gamma), d, dx, dg = opt(dgamma), db = opt(dbeta)]() mutable {
          r.group_norm_backward(dy, x, mean, rstd, ptr(g), d, dx, ptr(dg), ptr(db));
        });
    return true;
  }
  bool adam_update(Tensor& w, Tensor& m, Tensor& v, Tensor* v_hat, const Tensor& g, HostScalar alpha, double one_b1,
                   double one_b2, double eps) override;
  bool sgd_update(Tensor& w, Tensor* m, const Tensor& g, HostScalar lr, double momentum, bool nesterov) override;
  bool rmsprop_update(Tensor& w, Tensor& v, Tensor* mom, Tensor* avg, const Tensor& g, HostScalar lr, double rho,
                      double momentum, double eps) override;
  bool batch_norm_inference(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor* gamma,
                            const Tensor* beta, double eps, Tensor& y) override;
  bool has_fused(Fused kind, double eps) const override { return r_.has_fused(kind, eps); }
  void conv2d_bias_backward_filter(const Tensor& x, const Tensor& dy, const Tensor& y, bool relu,
                                   const Conv2DParams& p, Tensor& dw, Tensor& db) override {
    Node& n = run("Conv2DBiasBackpropFilter", {x, dy, y}, {dw, db}, [&r = r_, x, dy, y, relu, p, dw, db]() mutable {
      r.conv2d_bias_backward_filter(x, dy, y, relu, p, dw, db);
    });
    n.params.conv = p;
    n.params.flag_a = relu;
  }

  bool has_recurrence(const RecurrenceParams& p, DType dtype) const override { return r_.has_recurrence(p, dtype); }
  void recurrence_forward(const RecurrenceParams& p, const Ts& in, Ts& out) override {
    run("RecurrenceForward", in, out, [&r = r_, p, in, out]() mutable { r.recurrence_forward(p, in, out); })
        .params.axis = p.kind;
  }
  void recurrence_backward(const RecurrenceParams& p, const Ts& in, Ts& out) override {
    run("RecurrenceBackward", in, out, [&r = r_, p, in, out]() mutable { r.recurrence_backward(p, in, out); })
        .params.axis = p.kind;
  }

 private:
  template <class Fn>
  Node& run(const char* type, Ts inputs, Ts outputs, Fn fn) {
    if (execute_) fn();
    return add(type, std::move(inputs), std::move(outputs), std::move(fn));
  }
  template <class Fn>
  Node& add(const char* type, Ts inputs, Ts outputs, Fn fn) {
    Node n;
    n.type = type;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    n.run = std::move(fn);
    set_node_layer(n);
    return rec_.add(std::move(n));
  }
  Backend& r_;
  Recording& rec_;
  bool execute_;
};

bool RecordingBackend::adam_update(Tensor& w, Tensor& m, Tensor& v, Tensor* v_hat, const Tensor& g, HostScalar alpha,
                                   double one_b1, double one_b2, double eps) {
  if (execute_ ? !r_.adam_update(w, m, v, v_hat, g, alpha, one_b1, one_b2, eps) : !r_.has_fused(Fused::adam, eps))
    return false;
  add("ResourceApplyAdam", some({&w, &m, &v, v_hat, &g}), some({&w, &m, &v, v_hat}),
      [&r = r_, w, m, v, vh = opt(v_hat), g, alpha, one_b1, one_b2, eps]() mutable {
        r.adam_update(w, m, v, ptr(vh), g, alpha, one_b1, one_b2, eps);
      }).live = alpha.live != nullptr;
  return true;
}

bool RecordingBackend::sgd_update(Tensor& w, Tensor* m, const Tensor& g, HostScalar lr, double momentum, bool nesterov) {
  if (execute_ ? !r_.sgd_update(w, m, g, lr, momentum, nesterov) : !r_.has_fused(Fused::sgd, 0)) return false;
  add("ResourceApplyKerasMomentum", some({&w, m, &g}), some({&w, m}),
      [&r = r_, w, mt = opt(m), g, lr, momentum, nesterov]() mutable { r.sgd_update(w, ptr(mt), g, lr, momentum, nesterov); })
      .live = lr.live != nullptr;
  return true;
}

bool RecordingBackend::rmsprop_update(Tensor& w, Tensor& v, Tensor* mom, Tensor* avg, const Tensor& g, HostScalar lr,
                                      double rho, double momentum, double eps) {
  if (execute_ ? !r_.rmsprop_update(w, v, mom, avg, g, lr, rho, momentum, eps) : !r_.has_fused(Fused::rmsprop, eps))
    return false;
  add(avg ? "ResourceApplyCenteredRMSProp" : "ResourceApplyRMSProp", some({&w, &v, mom, avg, &g}),
      some({&w, &v, mom, avg}), [&r = r_, w, v, mo = opt(mom), a = opt(avg), g, lr, rho, momentum, eps]() mutable {
        r.rmsprop_update(w, v, ptr(mo), ptr(a), g, lr, rho, momentum, eps);
      }).live = lr.live != nullptr;
  return true;
}

bool RecordingBackend::batch_norm_inference(const Tensor& x, const Tensor& mean, const Tensor& var,
                                            const Tensor* gamma, const Tensor* beta, double eps, Tensor& y) {
  if (execute_ ? !r_.batch_norm_inference(x, mean, var, gamma, beta, eps, y)
               : !r_.has_fused(Fused::batch_norm_inference, eps))
    return false;
  Node& n = add("FusedBatchNormV3Inference", some({&x, &mean, &var, gamma, beta}), {y},
                [&r = r_, x, mean, var, g = opt(gamma), b = opt(beta), eps, y]() mutable {
                  r.batch_norm_inference(x, mean, var, ptr(g), ptr(b), eps, y);
                });
  n.params.value = eps;
  n.params.has_gamma = gamma != nullptr;
  n.params.has_beta = beta != nullptr;
  return true;
}

}  // namespace

struct RecordingScope::State {
  Recording* rec = nullptr;
  bool execute = true;
  std::map<Backend*, std::unique_ptr<RecordingBackend>> wrappers;
};

namespace { thread_local RecordingScope::State* t_state = nullptr; }

RecordingScope::RecordingScope(Recording& rec, bool execute) : state_(std::make_unique<State>()), saved_(t_state) {
  state_->rec = &rec;
  state_->execute = execute;
  t_state = state_.get();
}
RecordingScope::~RecordingScope() { t_state = saved_; }

RecordingPause::RecordingPause() : saved_(t_state) { t_state = nullptr; }
RecordingPause::~RecordingPause() { t_state = static_cast<RecordingScope::State*>(saved_); }

Recording* active_recording() { return t_state ? t_state->rec : nullptr; }

void materialize(const Tensor& t) {
  if (t_state && !t_state->execute && t.defined()) t_state->rec->compute_now(t);
}

void record_host_node(const std::function<void()>& fn, HostEffects effects) {
  Recording* rec = active_recording();
  if (!rec) return fn();
  if (t_state->execute) {
    RecordingPause pause;
    tracing::Scope eager(nullptr, true);
    fn();
  }
  Node n;
  n.type = std::move(effects.type);
  n.inputs = std::move(effects.reads);
  n.outputs = std::move(effects.writes);
  n.run = fn;
  n.host = true;
  n.opaque = effects.opaque;
  set_node_layer(n);
  n.branches = std::move(effects.branches);
  rec->add(std::move(n));
}

Backend& recorded(Backend& real) {
  if (!t_state) return real;
  auto& w = t_state->wrappers[&real];
  if (!w) w = std::make_unique<RecordingBackend>(real, *t_state->rec, t_state->execute);
  return *w;
}

}  // namespace kiln::backend
