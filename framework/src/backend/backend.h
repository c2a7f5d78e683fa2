#pragma once
// Private: the primitive set every device backend implements. Ops check their
// inputs, allocate outputs and call one of these; layers, losses, optimizers
// and gradient rules never see a device. To add a backend: implement this
// interface and return it from backend_for().
#include <array>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/tensor_impl.h"
#include "kiln/core/host_scalar.h"

namespace kiln::backend {

enum class UnaryOp {
  neg, abs, sign, exp, log, log1p, expm1, sqrt, rsqrt, square, sin, cos, tanh, erf,
  sigmoid, relu, softplus, floor, round, isnan, isfinite, logical_not
};
enum class BinaryOp {
  add, sub, mul, div, pow, maximum, minimum, eq, ne, lt, le, gt, ge, logical_and, logical_or,
  // Gradient helpers: relu_grad(x, dy) = dy * (x > 0), etc. Fused to save passes.
  relu_grad,
  // x - floor(x / y) * y with the sign of y (Python's %), computed from fmod so it is exact.
  floor_mod,
  // atan2(a, b): the angle of the point (b, a); floating dtypes only.
  atan2
};
enum class ReduceOp { sum, max, min, prod };

/// Device work recorded once and relaunched as a unit (a CUDA Graph). It
/// keeps the scratch memory its work used, so nothing else is handed it.
class CapturedWork {
 public:
  virtual ~CapturedWork() = default;
  /// Queues the recorded work again, in order after everything queued before.
  virtual void launch() = 0;
};

struct Conv2DParams {
  int64_t n, h, w, c_in;        // input NHWC
  int64_t kh, kw, c_out;        // kernel HWIO
  int64_t oh, ow;               // output spatial size
  int stride_h, stride_w, dil_h, dil_w;
  int64_t pad_top, pad_left;    // padding before; the rest is after
};
/// x viewed as (batch, spatial, groups, per_group) for group_norm: statistics per (batch, group) over its
/// spatial·per_group values, the affine per channel (groups·per_group). `center` false: no mean (RMS).
struct GroupNormDims {
  int64_t batch = 0, spatial = 1, groups = 1, per_group = 0;
  bool center = true;
};
/// keras.ops.dot_product_attention's sizes: query (batch, queries, heads, head_dim), key (batch, keys,
/// kv_heads, head_dim) and value (batch, keys, kv_heads, value_dim), heads a multiple of kv_heads (query
/// head n reads key head n / (heads / kv_heads)); logits scaled by `scale`.
struct AttentionDims {
  int64_t batch = 0, queries = 0, keys = 0, heads = 1, kv_heads = 1, head_dim = 0, value_dim = 0;
  double scale = 1;
};
struct Pool2DParams {
  int64_t n, h, w, c, oh, ow;
  int pool_h, pool_w, stride_h, stride_w;
  int64_t pad_top, pad_left;
};

/// A chain of element-wise ops run as one pass: each step reads one or two
/// buffers and writes one, element by element, all of `n` elements (a buffer
/// of one element is broadcast). Every buffer has the program's dtype and is
/// contiguous. Steps run in order for each block of elements, so a value
/// written by a step is read by later steps while it is still in cache.
struct ElementwiseProgram {
  struct Step {
    int unary = -1, binary = -1;  // the UnaryOp or BinaryOp
    int a = -1, b = -1, out = -1;  // indices into buffers (b only for binary)
  };
  DType dtype = DType::float32;
  int64_t n = 0;
  std::vector<Tensor> buffers;
  std::vector<Step> steps;
};

/// A built-in cell's recurrence over a whole sequence (the formulas are kiln/ops/recurrent_ops.h's).
/// Activations by number: what the fused kernels know.
enum class RecurrenceActivation { tanh, sigmoid, hard_sigmoid, relu, linear };
struct RecurrenceParams {
  int kind = 1;  // kiln::RecurrentKind: 0 SimpleRNN, 1 LSTM, 2 GRU
  RecurrenceActivation activation = RecurrenceActivation::tanh, recurrent_activation = RecurrenceActivation::sigmoid;
  bool reset_after = true, zero_output_for_mask = false;
  bool has_bias = false, has_mask = false;  // GRU reset_after's recurrent bias; a (batch, time) bool mask
  int64_t batch = 0, steps = 0, units = 0;
  /// Gate blocks of the projection: 1 (SimpleRNN), 4 (LSTM), 3 (GRU).
  int64_t gates() const { return kind == 1 ? 4 : kind == 2 ? 3 : 1; }
  /// Values per (example, step) the forward pass keeps for the backward pass, h_prev first.
  int64_t saved_width() const { return units * (kind == 1 ? 7 : kind == 2 ? 5 : 2); }
  int64_t states() const { return kind == 1 ? 2 : 1; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual Device device() const = 0;
  virtual std::shared_ptr<Storage> allocate(std::size_t nbytes) = 0;

  virtual void fill(Tensor& out, double value) = 0;
  virtual void cast(const Tensor& x, Tensor& out) = 0;
  /// dst[dst_off + i·dst_strides] (+)= src[src_off + i·src_strides] for every index i of `shape`.
  /// Covers copy, transpose, slicing, broadcasting, concat and their gradients.
  virtual void strided_copy(const Tensor& src, int64_t src_off, const std::vector<int64_t>& src_strides,
                            Tensor& dst, int64_t dst_off, const std::vector<int64_t>& dst_strides,
                            const Shape& shape, bool accumulate) = 0;
  virtual void unary(UnaryOp op, const Tensor& x, Tensor& out) = 0;
  /// out has the broadcast shape of a and b.
  virtual void binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out) = 0;
  /// out has x's rank with reduced axes set to 1 (keepdims layout).
  virtual void reduce(ReduceOp op, const Tensor& x, Tensor& out) = 0;
  virtual void arg_reduce(bool is_max, const Tensor& x, int axis, Tensor& out) = 0;
  virtual void where(const Tensor& cond, const Tensor& x, const Tensor& y, Tensor& out) = 0;
  /// params (outer, n, inner), indices flat -> out (outer, k, inner)
  virtual void gather(const Tensor& params, const Tensor& indices, int axis, Tensor& out) = 0;
  /// Adds updates into out along axis at indices (gradient of gather).
  virtual void scatter_add(Tensor& out, const Tensor& indices, const Tensor& updates, int axis) = 0;
  virtual void one_hot(const Tensor& indices, int64_t depth, Tensor& out) = 0;
  /// a: (B, M, K) or (B, K, M) with transpose; b likewise; out (B, M, N). B of a or b may be 1 (broadcast).
  virtual void matmul(const Tensor& a, const Tensor& b, Tensor& out, bool ta, bool tb) = 0;
  virtual void softmax(const Tensor& x, int axis, bool log, Tensor& out) = 0;
  /// Keras's AbsMaxQuantizer over x's last axis in one pass per row, x float32:
  /// scale = value_max / (max|row| + epsilon) in float32 (rows, 1), and
  /// q = clip(round(x · scale), value_min, value_max) as int8, x's shape.
  virtual void abs_max_quantize(const Tensor& x, double value_min, double value_max, double epsilon, Tensor& q,
                                Tensor& scale) = 0;
  /// Keras's int8 Dense product in one pass: out (M, N) float32 = float32(a · b) / (col_scale[j] ·
  /// row_scale[i]), then + bias[j] (bias (N) float32, or null) and max(., 0) when relu, a (M, K) and b (K, N)
  /// int8, row_scale (M) and col_scale (N) float32, rounded as the cast, the two element-wise ops and
  /// bias_add round. False, having written nothing, without a fused kernel.
  virtual bool int8_matmul_dequantize(const Tensor& a, const Tensor& b, const Tensor& row_scale,
                                      const Tensor& col_scale, const Tensor* bias, bool relu, Tensor& out) {
    (void)a, (void)b, (void)row_scale, (void)col_scale, (void)bias, (void)relu, (void)out;
    return false;
  }
  /// Attention in one pass, without a gradient: out (batch, queries, heads, value_dim) =
  /// softmax(where(keep, q·kᵀ·scale, -0.7·max(float32)))·v over the keys, keep the mask's value (bool,
  /// rank <= 4, broadcast to (batch, heads, queries, keys); null for none), the logits rounded as the
  /// separate matmul and multiply round them. False, having written nothing, without a kernel for q's dtype.
  virtual bool attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask,
                         const AttentionDims& dims, Tensor& out) {
    (void)q, (void)k, (void)v, (void)mask, (void)dims, (void)out;
    return false;
  }
  /// loss (N), probs (N, C) softmax of logits; labels int32/int64 (N).
  virtual void sparse_xent(const Tensor& labels, const Tensor& logits, Tensor& loss, Tensor& probs) = 0;
  virtual void conv2d(const Tensor& x, const Tensor& w, const Conv2DParams& p, Tensor& out) = 0;
  virtual void conv2d_backward_input(const Tensor& dy, const Tensor& w, const Conv2DParams& p, Tensor& dx) = 0;
  virtual void conv2d_backward_filter(const Tensor& x, const Tensor& dy, const Conv2DParams& p, Tensor& dw) = 0;
  virtual void max_pool2d(const Tensor& x, const Pool2DParams& p, Tensor& out, Tensor& argmax) = 0;
  virtual void max_pool2d_backward(const Tensor& dy, const Tensor& argmax, const Pool2DParams& p, Tensor& dx) = 0;
  virtual void avg_pool2d(const Tensor& x, const Pool2DParams& p, Tensor& out) = 0;
  virtual void avg_pool2d_backward(const Tensor& dy, const Pool2DParams& p, Tensor& dx) = 0;
  /// Inverted dropout; mask holds 0 or 1/(1-rate).
  virtual void dropout(const Tensor& x, double rate, uint64_t seed, Tensor& out, Tensor& mask) = 0;
  /// Copies a whole tensor across devices (host <-> device).
  virtual void copy_from(const Tensor& src, Tensor& dst) = 0;
  /// out = x + bias (bias along the last axis), then max(., 0) when relu.
  /// Backends fuse it into one pass; this default takes two.
  virtual void bias_add(const Tensor& x, const Tensor& bias, bool relu, Tensor& out) {
    binary(BinaryOp::add, x, bias, out);
    if (relu) unary(UnaryOp::relu, out, out);
  }
  /// The gradient of bias_add: dx = relu ? dy·(y > 0) : dy, where y is bias_add's output (dx is written
  /// only when relu; otherwise it is dy itself), and db = Σ dx over every axis but the last.
  virtual void bias_add_backward(const Tensor& dy, const Tensor& y, bool relu, Tensor& dx, Tensor& db) {
    if (relu) binary(BinaryOp::relu_grad, y, dy, dx);
    std::vector<int64_t> keep(static_cast<std::size_t>(dy.rank()), 1);
    keep.back() = db.size();
    Tensor db_view = alias_with_shape(db, Shape(keep));
    reduce(ReduceOp::sum, relu ? dx : dy, db_view);
  }
  /// out = conv2d(x, w) + bias, then max(., 0) when relu. Backends fuse the bias and
  /// activation into the convolution's output pass; this default takes three passes.
  virtual void conv2d_bias(const Tensor& x, const Tensor& w, const Tensor& bias, bool relu, const Conv2DParams& p,
                           Tensor& out) {
    conv2d(x, w, p, out);
    Tensor tmp = Tensor::empty(out.shape(), out.dtype(), out.device());
    bias_add(out, bias, relu, tmp);
    out = tmp;
  }
  /// Training-mode batch normalization over every axis but the last (x viewed as (rows, C)): writes the
  /// batch mean and population variance (C,) and y = (x − mean)·rsqrt(var + eps)·gamma + beta. gamma and
  /// beta may be null (scale / center off). Returns false when the backend has no fused kernel; the op
  /// then composes it from the other primitives.
  virtual bool batch_norm_training(const Tensor& x, const Tensor* gamma, const Tensor* beta, double eps, Tensor& y,
                                   Tensor& mean, Tensor& var) {
    (void)x, (void)gamma, (void)beta, (void)eps, (void)y, (void)mean, (void)var;
    return false;
  }
  /// Its gradient from dy (the mean and variance outputs carry none, as in TF's FusedBatchNorm):
  /// dx, and dgamma / dbeta where non-null. Returns false when there is no fused kernel.
  virtual bool batch_norm_training_backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& var,
                                            const Tensor* gamma, double eps, Tensor& dx, Tensor* dgamma, Tensor* dbeta) {
    (void)dy, (void)x, (void)mean, (void)var, (void)gamma, (void)eps, (void)dx, (void)dgamma, (void)dbeta;
    return false;
  }
  /// One Keras Adam step in place over a variable w and its slots m, v (and v_hat for amsgrad, else null),
  /// all of w's dtype and shape (kiln/ops/fused_updates.h gives the formula). one_b1 and one_b2 are 1 − β,
  /// rounded to the dtype once, as the composed ops round their scalar. Returns false when the backend has no
  /// fused kernel; the op then composes the step from the other primitives. The step size (alpha, lr) of
  /// these updates is a HostScalar: a recorded call reads its live value at each replay.
  virtual bool adam_update(Tensor& w, Tensor& m, Tensor& v, Tensor* v_hat, const Tensor& g, HostScalar alpha,
                           double one_b1, double one_b2, double eps) {
    (void)w, (void)m, (void)v, (void)v_hat, (void)g, (void)alpha, (void)one_b1, (void)one_b2, (void)eps;
    return false;
  }
  /// Keras SGD in place: without momentum (m null) w −= lr·g; with it
  /// m = momentum·m − lr·g, then w += momentum·m − lr·g (nesterov) or w += m.
  /// Scalars arrive rounded to w's dtype by the caller's formula. Returns false without a fused kernel.
  virtual bool sgd_update(Tensor& w, Tensor* m, const Tensor& g, HostScalar lr, double momentum, bool nesterov) {
    (void)w, (void)m, (void)g, (void)lr, (void)momentum, (void)nesterov;
    return false;
  }
  /// Keras RMSprop in place: v = ρ·v + (1−ρ)·g²; centered: a = ρ·a + (1−ρ)·g, d = v − a² + ε, else
  /// d = v + ε; inc = lr·g/√d; with momentum (mom non-null) mom = momentum·mom + inc, w −= mom; else w −= inc.
  virtual bool rmsprop_update(Tensor& w, Tensor& v, Tensor* mom, Tensor* avg, const Tensor& g, HostScalar lr, double rho,
                              double momentum, double eps) {
    (void)w, (void)v, (void)mom, (void)avg, (void)g, (void)lr, (void)rho, (void)momentum, (void)eps;
    return false;
  }
  /// Inference-mode batch normalization over the last axis with given statistics (C,):
  /// y = (x − mean)·rsqrt(var + eps)·gamma + beta (gamma / beta may be null). False without a fused kernel.
  virtual bool batch_norm_inference(const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor* gamma,
                                    const Tensor* beta, double eps, Tensor& y) {
    (void)x, (void)mean, (void)var, (void)gamma, (void)beta, (void)eps, (void)y;
    return false;
  }
  /// Normalization over groups (LayerNormalization: spatial = groups = 1; GroupNormalization channels last;
  /// RMSNormalization: center false): per (batch, group) mean m (0 without center) and rstd = rsqrt(mean((x −
  /// m)²) + eps), written to mean and rstd (batch·groups,); y = (x − m)·rstd·gamma + beta, gamma / beta
  /// (groups·per_group,) or null. False without a fused kernel.
  virtual bool group_norm(const Tensor& x, const Tensor* gamma, const Tensor* beta, const GroupNormDims& d,
                          double eps, Tensor& y, Tensor& mean, Tensor& rstd) {
    (void)x, (void)gamma, (void)beta, (void)d, (void)eps, (void)y, (void)mean, (void)rstd;
    return false;
  }
  /// Its gradient from dy: dx, and dgamma / dbeta where non-null. False without a fused kernel.
  virtual bool group_norm_backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                                   const Tensor* gamma, const GroupNormDims& d, Tensor& dx, Tensor* dgamma,
                                   Tensor* dbeta) {
    (void)dy, (void)x, (void)mean, (void)rstd, (void)gamma, (void)d, (void)dx, (void)dgamma, (void)dbeta;
    return false;
  }
  /// Which optional fused kernels this backend has, asked without running one (a trace that does not
  /// execute must know whether the kernel call it records will do the work at replay).
  enum class Fused { batch_norm, batch_norm_inference, adam, sgd, rmsprop, group_norm, int8_matmul, attention };
  virtual bool has_fused(Fused kind, double eps) const {
    (void)kind, (void)eps;
    return false;
  }
  /// Whether fused_elementwise can run this op on this dtype.
  virtual bool can_fuse(DType dtype, int unary, int binary) const {
    (void)dtype, (void)unary, (void)binary;
    return false;
  }
  /// Runs the program; returns false (having done nothing) when this backend cannot now,
  /// and the caller runs the steps one op at a time.
  virtual bool fused_elementwise(const ElementwiseProgram& program) {
    (void)program;
    return false;
  }
  /// conv2d_bias with relu, then a max pool over its output, without writing the
  /// convolution's output anywhere: `out` and `argmax` are max_pool2d's, except
  /// that argmax is -1 where the pooled value is not positive (the relu passes no
  /// gradient there, so max_pool2d_backward gives zeros). An undefined `argmax`
  /// means no gradient is wanted (inference), and none is written. False, having
  /// written nothing, when this backend cannot now (the caller runs the two ops instead).
  virtual bool conv2d_bias_relu_max_pool(const Tensor& x, const Tensor& w, const Tensor& bias,
                                         const Conv2DParams& cp, const Pool2DParams& pp, Tensor& out, Tensor& argmax) {
    (void)x, (void)w, (void)bias, (void)cp, (void)pp, (void)out, (void)argmax;
    return false;
  }
  /// The kernel and bias gradients of conv2d_bias_relu_max_pool from its pooled output's
  /// gradient `dpool` (times `scale` element-wise when given, as a dropout's mask), without
  /// the convolution-sized gradient max_pool2d_backward would write. False, having written
  /// nothing, when this backend cannot now.
  virtual bool conv2d_bias_relu_max_pool_backward_filter(const Tensor& x, const Tensor& dpool, const Tensor* scale,
                                                         const Tensor& argmax, const Conv2DParams& cp,
                                                         const Pool2DParams& pp, Tensor& dw, Tensor& db) {
    (void)x, (void)dpool, (void)scale, (void)argmax, (void)cp, (void)pp, (void)dw, (void)db;
    return false;
  }
  /// Whether conv2d_bias_relu_max_pool (`backward` false) or its backward_filter (true) has a
  /// kernel for these shapes, asked at trace time.
  virtual bool has_conv2d_bias_relu_max_pool(const Conv2DParams& cp, const Pool2DParams& pp, DType dtype,
                                             bool backward) const {
    (void)cp, (void)pp, (void)dtype, (void)backward;
    return false;
  }
  /// The kernel and bias gradients of conv2d_bias (output y) when its input needs no gradient.
  /// Backends use the masked gradient on the fly; this default stores it first.
  virtual void conv2d_bias_backward_filter(const Tensor& x, const Tensor& dy, const Tensor& y, bool relu,
                                           const Conv2DParams& p, Tensor& dw, Tensor& db) {
    Tensor dz = relu ? Tensor::empty(dy.shape(), dy.dtype(), dy.device()) : dy;
    bias_add_backward(dy, y, relu, dz, db);
    conv2d_backward_filter(x, dz, p, dw);
  }

  /// Depthwise 2-D convolution, NHWC: out[n, y, x, c·M + m] sums x[n, ., ., c] · w[i, j, c, m]
  /// over the taps, with w (kh, kw, C, M), p.c_in = C and p.c_out = C·M. Called only where
  /// has_depthwise_conv2d says so; elsewhere the op runs one conv2d per channel.
  virtual bool has_depthwise_conv2d(DType dtype) const {
    (void)dtype;
    return false;
  }
  virtual void depthwise_conv2d(const Tensor& x, const Tensor& w, const Conv2DParams& p, Tensor& out) {
    (void)x, (void)w, (void)p, (void)out;
    throw std::logic_error("depthwise_conv2d: this backend has no depthwise kernel");
  }
  /// The input gradient of depthwise_conv2d (dx: the input's shape).
  virtual void depthwise_conv2d_backward_input(const Tensor& dy, const Tensor& w, const Conv2DParams& p, Tensor& dx) {
    (void)dy, (void)w, (void)p, (void)dx;
    throw std::logic_error("depthwise_conv2d_backward_input: this backend has no depthwise kernel");
  }
  /// The kernel gradient of depthwise_conv2d (dw: (kh, kw, C, M)).
  virtual void depthwise_conv2d_backward_filter(const Tensor& x, const Tensor& dy, const Conv2DParams& p, Tensor& dw) {
    (void)x, (void)dy, (void)p, (void)dw;
    throw std::logic_error("depthwise_conv2d_backward_filter: this backend has no depthwise kernel");
  }

  /// A complex discrete Fourier transform along the last axis of split real and imaginary
  /// parts (all four of one shape and a float dtype), unnormalised, forward (e^-2πi·jk/n) or
  /// inverse (e^+2πi·jk/n). Called only where has_fft says so; elsewhere the op runs it on
  /// the CPU.
  virtual bool has_fft(DType dtype) const {
    (void)dtype;
    return false;
  }
  virtual void fft(const Tensor& re, const Tensor& im, bool inverse, Tensor& out_re, Tensor& out_im) {
    (void)re, (void)im, (void)inverse, (void)out_re, (void)out_im;
    throw std::logic_error("fft: this backend has no FFT kernel");
  }

  /// The fused recurrence (RecurrenceParams). Forward reads {projected (batch, time, gates·units),
  /// recurrent_kernel (units, gates·units), [bias (gates·units,)], states (batch, units)..., [mask]} and
  /// writes {outputs (batch, time, units), final states..., saved (batch, time, saved_width())}.
  /// Backward reads {d outputs, d final states..., recurrent_kernel, [mask], saved} and writes
  /// {d projected, d recurrent_kernel, [d bias], d initial states...}. Called only where
  /// has_recurrence says so; elsewhere the op composes the loop from the other primitives.
  virtual bool has_recurrence(const RecurrenceParams& p, DType dtype) const {
    (void)p, (void)dtype;
    return false;
  }
  virtual void recurrence_forward(const RecurrenceParams& p, const std::vector<Tensor>& in, std::vector<Tensor>& out) {
    (void)p, (void)in, (void)out;
    throw std::logic_error("recurrence_forward: this backend has no fused recurrence");
  }
  virtual void recurrence_backward(const RecurrenceParams& p, const std::vector<Tensor>& in, std::vector<Tensor>& out) {
    (void)p, (void)in, (void)out;
    throw std::logic_error("recurrence_backward: this backend has no fused recurrence");
  }

  /// Starts recording, instead of running, the work this thread queues on the
  /// device. False where the device cannot (the CPU) or already records.
  virtual bool begin_capture() { return false; }
  /// Ends the recording begun by begin_capture(). Null when the work could not
  /// be recorded (it used something capture forbids); either way the work
  /// queued in between has not run.
  virtual std::unique_ptr<CapturedWork> end_capture() { return nullptr; }
};

Backend& backend_for(Device device);
Backend& cpu_backend();

}  // namespace kiln::backend
