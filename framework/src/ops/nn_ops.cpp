// Neural-network ops: softmax, conv2d, pooling, dropout, fused cross-entropy.
#include "kiln/ops/nn_ops.h"

#include "core/number_text.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "kiln/ops/reduce_ops.h"
#include "backend/recording.h"
#include "ops/conv2d_params_ops.h"
#include "ops/op_util.h"
#include "core/op_log.h"
#include "ops/half_compute.h"

namespace kiln {

using namespace ops;

namespace {
// The backend would also refuse, but only this names the op and the shape.
void check_floating(const char* op, const Tensor& x) {
  if (!is_floating(x.dtype()))
    throw TypeError(std::string(op) + ": expected a float32 or float64 tensor, but received " + dtype_name(x.dtype()) +
                    " with shape " + x.shape().to_string());
}
}  // namespace

Tensor softmax(const Tensor& x, int axis) {
  KILN_LOG_OP(softmax, x, axis);
  KILN_HALF_IN_FLOAT32(softmax, x, axis);
  check_concrete("softmax", x);
  check_floating("softmax", x);
  int a = normalize_axis("softmax", axis, x.rank());
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  be(x).softmax(x, a, false, y);
  if (autodiff::active())
    autodiff::record("Softmax", {x}, {y}, [y, a](const Grads& dy, const Needs&) {
      // dx = y · (dy − Σ dy·y)
      return Grads{multiply(y, subtract(dy[0], sum(multiply(dy[0], y), a, true)))};
    });
  return y;
}

Tensor log_softmax(const Tensor& x, int axis) {
  KILN_LOG_OP(log_softmax, x, axis);
  KILN_HALF_IN_FLOAT32(log_softmax, x, axis);
  check_concrete("log_softmax", x);
  check_floating("log_softmax", x);
  int a = normalize_axis("log_softmax", axis, x.rank());
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  be(x).softmax(x, a, true, y);
  if (autodiff::active())
    autodiff::record("LogSoftmax", {x}, {y}, [y, a](const Grads& dy, const Needs&) {
      // dx = dy − softmax · Σ dy
      return Grads{subtract(dy[0], multiply(exp(y), sum(dy[0], a, true)))};
    });
  return y;
}

namespace {
int64_t conv_out(int64_t in, int64_t k, int stride, int dil, bool same, int64_t& pad_before) {
  const int64_t ek = (k - 1) * dil + 1;
  if (same) {
    const int64_t out = (in + stride - 1) / stride;
    const int64_t pad = std::max<int64_t>((out - 1) * stride + ek - in, 0);
    pad_before = pad / 2;  // TF puts the odd pixel at the end
    return out;
  }
  pad_before = 0;
  return in >= ek ? (in - ek) / stride + 1 : 0;
}

bool parse_padding(const std::string& p, const char* op) {
  if (p == "same") return true;
  if (p == "valid") return false;
  throw ValueError(std::string(op) + ": padding must be \"valid\" or \"same\", but received \"" + p + "\"");
}

}  // namespace

namespace ops {
Tensor conv2d_with_params(const Tensor& x, const Tensor& w, const backend::Conv2DParams& p) {
  Tensor y = Tensor::empty(Shape{p.n, p.oh, p.ow, p.c_out}, x.dtype(), x.device());
  be(x).conv2d(x, w, p, y);
  autodiff::record_no_gradient("Conv2D", {x, w}, {y});
  return y;
}
Tensor conv2d_backward_input(const Tensor& dy, const Tensor& w, const backend::Conv2DParams& p) {
  Tensor dx = Tensor::empty(Shape{p.n, p.h, p.w, p.c_in}, dy.dtype(), dy.device());
  be(dy).conv2d_backward_input(dy, w, p, dx);
  autodiff::record_no_gradient("Conv2DBackpropInput", {dy, w}, {dx});
  return dx;
}
Tensor conv2d_backward_filter(const Tensor& x, const Tensor& dy, const backend::Conv2DParams& p) {
  Tensor dw = Tensor::empty(Shape{p.kh, p.kw, p.c_in, p.c_out}, dy.dtype(), dy.device());
  be(dy).conv2d_backward_filter(x, dy, p, dw);
  autodiff::record_no_gradient("Conv2DBackpropFilter", {x, dy}, {dw});
  return dw;
}
}  // namespace ops

namespace {
backend::Conv2DParams conv_params(const char* op, const Tensor& x, const Tensor& kernel, const Conv2DOptions& o) {
  check_concrete(op, x);
  check_concrete(op, kernel);
  common_device(op, {x, kernel});
  check_same_dtype(op, x, kernel);
  const std::string name = op;
  if (!is_floating(x.dtype())) throw TypeError(name + ": expected float inputs, but received " + dtype_name(x.dtype()));
  if (x.rank() != 4 || kernel.rank() != 4)
    throw ShapeError(name + ": expected a 4-D input (batch, height, width, channels) and a 4-D kernel "
                     "(kh, kw, in_channels, out_channels), but received input " + x.shape().to_string() + " and kernel " +
                     kernel.shape().to_string());
  if (x.shape()[3] != kernel.shape()[2])
    throw ShapeError(name + ": the input has " + std::to_string(x.shape()[3]) + " channels (shape " + x.shape().to_string() +
                     ") but the kernel expects " + std::to_string(kernel.shape()[2]) + " (kernel shape " +
                     kernel.shape().to_string() + ")");
  if (o.strides[0] < 1 || o.strides[1] < 1 || o.dilation[0] < 1 || o.dilation[1] < 1)
    throw ValueError(name + ": strides and dilation must be >= 1");
  bool same = parse_padding(o.padding, op);
  backend::Conv2DParams p{};
  p.n = x.shape()[0]; p.h = x.shape()[1]; p.w = x.shape()[2]; p.c_in = x.shape()[3];
  p.kh = kernel.shape()[0]; p.kw = kernel.shape()[1]; p.c_out = kernel.shape()[3];
  p.stride_h = o.strides[0]; p.stride_w = o.strides[1]; p.dil_h = o.dilation[0]; p.dil_w = o.dilation[1];
  p.oh = conv_out(p.h, p.kh, p.stride_h, p.dil_h, same, p.pad_top);
  p.ow = conv_out(p.w, p.kw, p.stride_w, p.dil_w, same, p.pad_left);
  if (p.oh <= 0 || p.ow <= 0)
    throw ShapeError(name + ": the kernel " + kernel.shape().to_string() + " (dilation " + std::to_string(p.dil_h) + "x" +
                     std::to_string(p.dil_w) + ") is larger than the input " + x.shape().to_string() +
                     " with padding \"valid\"; the output would be empty");
  return p;
}


// The gradient through "+ bias, then relu" given the fused output y: the masked
// gradient and its column sums. Under an outer tape (higher-order gradients) it
// is composed from differentiable ops; otherwise one fused backend pass.
std::pair<Tensor, Tensor> bias_act_grad(const Tensor& dy, const Tensor& y, bool relu) {
  if (autodiff::active()) {
    Tensor g = relu ? relu_mask_grad(y, dy) : dy;
    const auto axes = all_but_last_axis(dy.rank());
    return {g, axes.empty() ? g : sum(g, Axes(axes))};
  }
  Tensor dx = relu ? Tensor::empty(dy.shape(), dy.dtype(), dy.device()) : dy;
  Tensor db = Tensor::empty(Shape{dy.shape()[-1]}, dy.dtype(), dy.device());
  be(dy).bias_add_backward(dy, y, relu, dx, db);
  return {dx, db};
}
}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& kernel, Conv2DOptions o) {
  KILN_LOG_OP(conv2d, x, kernel, o);
  KILN_HALF_IN_FLOAT32(conv2d, x, kernel, o);
  const backend::Conv2DParams p = conv_params("conv2d", x, kernel, o);
  Tensor y = Tensor::empty(Shape{p.n, p.oh, p.ow, p.c_out}, x.dtype(), x.device());
  be(x).conv2d(x, kernel, p, y);
  if (autodiff::active())
    autodiff::record("Conv2D", {x, kernel}, {y}, [x, kernel, p](const Grads& dy, const Needs& n) {
      return Grads{n[0] ? conv2d_backward_input(dy[0], kernel, p) : Tensor(),
                   n[1] ? conv2d_backward_filter(x, dy[0], p) : Tensor()};
    });
  return y;
}

Tensor conv2d_bias(const Tensor& x, const Tensor& kernel, const Tensor& bias, Conv2DOptions o, bool relu) {
  KILN_LOG_OP(conv2d_bias, x, kernel, bias, o, relu);
  KILN_HALF_IN_FLOAT32(conv2d_bias, x, kernel, bias, o, relu);
  const backend::Conv2DParams p = conv_params("conv2d_bias", x, kernel, o);
  Tensor y = Tensor::empty(Shape{p.n, p.oh, p.ow, p.c_out}, x.dtype(), x.device());
  check_per_channel("conv2d_bias", "bias", bias, y, "output");
  be(x).conv2d_bias(x, kernel, bias, relu, p, y);
  if (autodiff::active())
    autodiff::record(relu ? "Conv2DBiasRelu" : "Conv2DBias", {x, kernel, bias}, {y},
                     [x, kernel, y, p, relu](const Grads& dy, const Needs& n) {
                       if (!n[0] && n[1] && n[2] && !autodiff::active()) {
                         // The usual first layer: no input gradient, so the masked
                         // gradient is never stored.
                         Tensor dw = Tensor::empty(kernel.shape(), kernel.dtype(), kernel.device());
                         Tensor db = Tensor::empty(Shape{p.c_out}, kernel.dtype(), kernel.device());
                         be(x).conv2d_bias_backward_filter(x, dy[0], y, relu, p, dw, db);
                         return Grads{Tensor(), dw, db};
                       }
                       auto [dz, db] = bias_act_grad(dy[0], y, relu);
                       return Grads{n[0] ? conv2d_backward_input(dz, kernel, p) : Tensor(),
                                    n[1] ? conv2d_backward_filter(x, dz, p) : Tensor(), n[2] ? db : Tensor()};
                     });
  return y;
}

Tensor depthwise_conv2d(const Tensor& x, const Tensor& kernel, Conv2DOptions o) {
  KILN_LOG_OP(depthwise_conv2d, x, kernel, o);
  KILN_HALF_IN_FLOAT32(depthwise_conv2d, x, kernel, o);
  backend::Conv2DParams p = conv_params("depthwise_conv2d", x, kernel, o);
  const int64_t c = p.c_in, m = p.c_out;
  if (!be(x).has_depthwise_conv2d(x.dtype())) {
    // One convolution per channel; channel c's M outputs land at c·M .. c·M + M - 1.
    auto xs = split(x, c, 3);
    auto ks = split(kernel, c, 2);
    std::vector<Tensor> ys;
    for (int64_t i = 0; i < c; ++i) ys.push_back(conv2d(xs[i], ks[i], o));
    return ys.size() == 1 ? ys[0] : concat(ys, 3);
  }
  p.c_out = c * m;
  Tensor y = Tensor::empty(Shape{p.n, p.oh, p.ow, p.c_out}, x.dtype(), x.device());
  be(x).depthwise_conv2d(x, kernel, p, y);
  if (autodiff::active())
    autodiff::record("DepthwiseConv2dNative", {x, kernel}, {y}, [x, kernel, p](const Grads& dy, const Needs& n) {
      Tensor dx, dw;
      if (n[0]) {
        dx = Tensor::empty(x.shape(), dy[0].dtype(), dy[0].device());
        be(dy[0]).depthwise_conv2d_backward_input(dy[0], kernel, p, dx);
        autodiff::record_no_gradient("DepthwiseConv2dNativeBackpropInput", {dy[0], kernel}, {dx});
      }
      if (n[1]) {
        dw = Tensor::empty(kernel.shape(), dy[0].dtype(), dy[0].device());
        be(dy[0]).depthwise_conv2d_backward_filter(x, dy[0], p, dw);
        autodiff::record_no_gradient("DepthwiseConv2dNativeBackpropFilter", {x, dy[0]}, {dw});
      }
      return Grads{dx, dw};
    });
  return y;
}

namespace {
backend::Pool2DParams pool_params(const Tensor& x, const Pool2DOptions& o, const char* op) {
  check_concrete(op, x);
  if (x.rank() != 4)
    throw ShapeError(std::string(op) + ": expected a 4-D input (batch, height, width, channels), but received shape " +
                     x.shape().to_string());
  if (!is_floating(x.dtype())) throw TypeError(std::string(op) + ": expected float input, but received " + dtype_name(x.dtype()));
  bool same = parse_padding(o.padding, op);
  backend::Pool2DParams p{};
  p.n = x.shape()[0]; p.h = x.shape()[1]; p.w = x.shape()[2]; p.c = x.shape()[3];
  p.pool_h = o.pool_size[0]; p.pool_w = o.pool_size[1];
  p.stride_h = o.strides[0] > 0 ? o.strides[0] : p.pool_h;
  p.stride_w = o.strides[1] > 0 ? o.strides[1] : p.pool_w;
  if (p.pool_h < 1 || p.pool_w < 1) throw ValueError(std::string(op) + ": pool_size must be >= 1");
  p.oh = conv_out(p.h, p.pool_h, p.stride_h, 1, same, p.pad_top);
  p.ow = conv_out(p.w, p.pool_w, p.stride_w, 1, same, p.pad_left);
  if (p.oh <= 0 || p.ow <= 0)
    throw ShapeError(std::string(op) + ": pool size " + std::to_string(p.pool_h) + "x" + std::to_string(p.pool_w) +
                     " is larger than the input " + x.shape().to_string() + " with padding \"valid\"");
  return p;
}

Tensor max_pool2d_backward(const Tensor& dy, const Tensor& argmax, const Tensor& x_like, const backend::Pool2DParams& p) {
  Tensor dx = Tensor::empty(x_like.shape(), dy.dtype(), dy.device());
  be(dy).max_pool2d_backward(dy, argmax, p, dx);
  if (autodiff::active())
    autodiff::record("MaxPoolGrad", {dy}, {dx}, [argmax](const Grads& g, const Needs&) {
      // The second derivative picks the same elements: gather g at argmax.
      Tensor flat = reshape(g[0], Shape{g[0].size()});
      return Grads{reshape(gather(flat, reshape(argmax, Shape{argmax.size()})), argmax.shape())};
    });
  return dx;
}

Tensor avg_pool2d_backward(const Tensor& dy, const Shape& xs, const backend::Pool2DParams& p);
}  // namespace

Tensor max_pool2d(const Tensor& x, Pool2DOptions o) {
  KILN_LOG_OP(max_pool2d, x, o);
  KILN_HALF_IN_FLOAT32(max_pool2d, x, o);
  auto p = pool_params(x, o, "max_pool2d");
  if (x.size() >= (int64_t{1} << 31))
    throw ValueError("max_pool2d: the input " + x.shape().to_string() + " has 2^31 or more elements, too many for int32 argmax indices");
  Tensor y = Tensor::empty(Shape{p.n, p.oh, p.ow, p.c}, x.dtype(), x.device());
  // Only the gradient reads the argmax: without a tape the backend gets an empty
  // one and skips writing it (a fifth of the pass's memory traffic).
  Tensor am = Tensor::empty(autodiff::active() ? y.shape() : Shape{0}, DType::int32, x.device());
  be(x).max_pool2d(x, p, y, am);
  if (autodiff::active()) {
    Tensor shape_only = Tensor::symbolic(x.shape(), x.dtype());
    autodiff::record("MaxPool", {x}, {y}, [am, shape_only, p](const Grads& dy, const Needs&) {
      return Grads{max_pool2d_backward(dy[0], am, shape_only, p)};
    });
  }
  return y;
}

namespace {
Tensor avg_pool2d_backward(const Tensor& dy, const Shape& xs, const backend::Pool2DParams& p) {
  Tensor dx = Tensor::empty(xs, dy.dtype(), dy.device());
  be(dy).avg_pool2d_backward(dy, p, dx);
  if (autodiff::active())
    autodiff::record("AvgPoolGrad", {dy}, {dx}, [p](const Grads& g, const Needs&) {
      Tensor y = Tensor::empty(Shape{p.n, p.oh, p.ow, p.c}, g[0].dtype(), g[0].device());
      be(g[0]).avg_pool2d(g[0], p, y);
      return Grads{y};
    });
  return dx;
}
}  // namespace

Tensor avg_pool2d(const Tensor& x, Pool2DOptions o) {
  KILN_LOG_OP(avg_pool2d, x, o);
  KILN_HALF_IN_FLOAT32(avg_pool2d, x, o);
  auto p = pool_params(x, o, "avg_pool2d");
  Tensor y = Tensor::empty(Shape{p.n, p.oh, p.ow, p.c}, x.dtype(), x.device());
  be(x).avg_pool2d(x, p, y);
  if (autodiff::active()) {
    Shape xs = x.shape();
    autodiff::record("AvgPool", {x}, {y}, [xs, p](const Grads& dy, const Needs&) { return Grads{avg_pool2d_backward(dy[0], xs, p)}; });
  }
  return y;
}

Tensor dropout(const Tensor& x, double rate) {
  KILN_LOG_OP(dropout, x, rate);
  KILN_HALF_IN_FLOAT32(dropout, x, rate);
  check_concrete("dropout", x);
  if (rate < 0 || rate >= 1) throw ValueError("dropout: rate must be in [0, 1), but received " + kiln::detail::number_text(rate));
  if (rate == 0) return identity(x);
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  Tensor mask = Tensor::empty(x.shape(), x.dtype(), x.device());
  // A host node inside a trace: each replay takes the next seed from the
  // global generator, as the eager call does, so traced and eager runs agree.
  backend::run_as_host_node([x, rate, y, mask]() mutable { be(x).dropout(x, rate, random::next_seed(), y, mask); },
                            {.type = "Dropout", .reads = {x}, .writes = {y, mask}, .opaque = false});
  if (autodiff::active())
    autodiff::record("Dropout", {x}, {y}, [mask](const Grads& dy, const Needs&) { return Grads{multiply(dy[0], mask)}; });
  return y;
}

Tensor bias_add(const Tensor& x, const Tensor& bias, bool relu_after) {
  KILN_LOG_OP(bias_add, x, bias, relu_after);
  KILN_HALF_IN_FLOAT32(bias_add, x, bias, relu_after);
  check_concrete("bias_add", x);
  check_per_channel("bias_add", "bias", bias, x, "input");
  if (!is_floating(x.dtype())) throw TypeError("bias_add: expected float inputs, but received " + dtype_name(x.dtype()));
  Tensor y = Tensor::empty(x.shape(), x.dtype(), x.device());
  be(x).bias_add(x, bias, relu_after, y);
  if (autodiff::active())
    autodiff::record(relu_after ? "BiasAddRelu" : "BiasAdd", {x, bias}, {y}, [y, relu_after](const Grads& dy, const Needs&) {
      auto [dx, db] = bias_act_grad(dy[0], y, relu_after);  // relu's mask is y > 0 (the fused output)
      return Grads{dx, db};
    });
  return y;
}

Tensor sparse_softmax_cross_entropy_with_logits(const Tensor& labels, const Tensor& logits) {
  KILN_LOG_OP(sparse_softmax_cross_entropy_with_logits, labels, logits);
  KILN_HALF_IN_FLOAT32(sparse_softmax_cross_entropy_with_logits, labels, logits);
  const char* op = "sparse_softmax_cross_entropy_with_logits";
  check_concrete(op, labels);
  check_concrete(op, logits);
  if (!is_integer(labels.dtype()))
    throw TypeError(std::string(op) + ": labels must be integers, but received " + dtype_name(labels.dtype()));
  common_device(op, {labels, logits});
  if (!is_floating(logits.dtype())) throw TypeError(std::string(op) + ": logits must be float, but received " + dtype_name(logits.dtype()));
  if (logits.rank() < 1 || !(labels.shape() == logits.shape().slice(0, -1)))
    throw ShapeError(std::string(op) + ": labels shape " + labels.shape().to_string() +
                     " must equal logits shape without its last axis; logits shape is " + logits.shape().to_string());
  Tensor loss = Tensor::empty(labels.shape(), logits.dtype(), logits.device());
  Tensor probs = Tensor::empty(logits.shape(), logits.dtype(), logits.device());
  be(logits).sparse_xent(labels, logits, loss, probs);
  if (autodiff::active()) {
    const int64_t C = logits.shape()[-1];
    autodiff::record("SparseSoftmaxCrossEntropyWithLogits", {labels, logits}, {loss},
                     [labels, probs, C](const Grads& dy, const Needs&) {
                       Tensor g = subtract(probs, one_hot(labels, C, probs.dtype()));
                       return Grads{Tensor(), multiply(g, expand_dims(dy[0], -1))};
                     });
  }
  return loss;
}

}  // namespace kiln
