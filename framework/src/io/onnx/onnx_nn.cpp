// Matrix products, attention, convolutions, pooling and batch normalization as ONNX ops.
#include <algorithm>
#include <limits>

#include "io/onnx/onnx_emitters.h"

namespace kiln::io::onnx {

namespace {

Shape drop_first(const Shape& s) { return Shape(std::vector<int64_t>(s.dims().begin() + 1, s.dims().end())); }

const std::vector<int64_t> kToNchw{0, 3, 1, 2}, kToNhwc{0, 2, 3, 1};

/// ONNX's [top, left, bottom, right] pads: Kiln's leading pads, and what the last window reaches past the input.
std::vector<int64_t> pads(int64_t h, int64_t w, int64_t oh, int64_t ow, int64_t kh, int64_t kw, int sh, int sw, int dh,
                          int dw, int64_t top, int64_t left) {
  const int64_t bottom = std::max<int64_t>(0, (oh - 1) * sh + (kh - 1) * dh + 1 - h - top);
  const int64_t right = std::max<int64_t>(0, (ow - 1) * sw + (kw - 1) * dw + 1 - w - left);
  return {top, left, bottom, right};
}

}  // namespace

void emit_matmul(GraphWriter& w, const Pair& p) {
  const Tensor &a = p.a.inputs[0], &b = p.a.inputs[1];
  const Tensor &a2 = p.b.inputs[0], &b2 = p.b.inputs[1];
  const bool ta = p.a.params.flag_a, tb = p.a.params.flag_b;
  // A product of plain matrices (every batch of one) is written as one, so a Dense layer stays a 2-D MatMul.
  const bool plain = a.shape()[0] == 1 && b.shape()[0] == 1 && a2.shape()[0] == 1 && b2.shape()[0] == 1;
  std::string x = plain ? w.in_as(p, 0, drop_first(a.shape()), drop_first(a2.shape())) : w.in(p, 0);
  std::string y = plain ? w.in_as(p, 1, drop_first(b.shape()), drop_first(b2.shape())) : w.in(p, 1);
  const std::vector<int64_t> swap = plain ? std::vector<int64_t>{1, 0} : std::vector<int64_t>{0, 2, 1};
  if (ta) x = w.node1("Transpose", {x}, {ints_attr("perm", swap)});
  if (tb) y = w.node1("Transpose", {y}, {ints_attr("perm", swap)});
  const std::string out = w.node1("MatMul", {x, y});
  const Shape &oa = p.a.outputs[0].shape(), &ob = p.b.outputs[0].shape();
  if (plain) w.set(p, 0, out, a.dtype(), drop_first(oa), drop_first(ob));
  else w.set(p, 0, out, a.dtype());
}

void emit_attention(GraphWriter& w, const Pair& p) {
  // keras.ops.dot_product_attention's composed form: heads to the front, q·kᵀ·scale, masked logits set to
  // -0.7·max(float32), the softmax over the keys, its product with the values, heads back.
  const Tensor &q = p.a.inputs[0], &k = p.a.inputs[1];
  const DType dt = q.dtype();
  const int64_t heads = w.fixed(q.shape()[2], p.b.inputs[0].shape()[2], "attention's heads");
  const int64_t kv_heads = w.fixed(k.shape()[2], p.b.inputs[1].shape()[2], "attention's key heads");
  auto heads_first = [&](std::size_t i, std::vector<int64_t> perm) {
    std::string x = w.in(p, i);
    if (i > 0 && kv_heads != heads) {
      // Grouped heads: key head j serves query heads j·G ... j·G + G - 1.
      x = w.node1("Expand", {w.node1("Unsqueeze", {x, w.ints({3})}), w.ints({1, 1, 1, heads / kv_heads, 1})});
      x = w.node1("Reshape", {x, w.ints({0, 0, heads, -1})});
    }
    return w.node1("Transpose", {x}, {ints_attr("perm", std::move(perm))});
  };
  std::string logits = w.node1("MatMul", {heads_first(0, {0, 2, 1, 3}), heads_first(1, {0, 2, 3, 1})});
  logits = w.node1("Mul", {logits, w.scalar(p.a.params.value, dt)});
  if (p.a.inputs.size() > 3)
    logits = w.node1("Where", {w.in(p, 3), logits,
                               w.scalar(-0.7 * static_cast<double>(std::numeric_limits<float>::max()), dt)});
  const std::string probs = w.node1("Softmax", {logits}, {int_attr("axis", -1)});
  const std::string out = w.node1("MatMul", {probs, heads_first(2, {0, 2, 1, 3})});
  w.set(p, 0, w.node1("Transpose", {out}, {ints_attr("perm", {0, 2, 1, 3})}), dt);
}

void emit_conv2d(GraphWriter& w, const Pair& p) {
  const auto& c = p.a.params.conv;
  const auto& c2 = p.b.params.conv;
  for (auto [x, y] : {std::pair{c.h, c2.h}, {c.w, c2.w}, {c.c_in, c2.c_in}, {c.oh, c2.oh}, {c.ow, c2.ow}})
    w.fixed(x, y, "a convolution's spatial size");
  // A depthwise kernel (kh, kw, C, M) is ONNX's grouped convolution with C groups
  // of one input channel: as HWIO, (kh, kw, 1, C·M).
  const bool depthwise = p.a.type == "DepthwiseConv2dNative";
  const std::string x = w.node1("Transpose", {w.in(p, 0)}, {ints_attr("perm", kToNchw)});
  std::string kernel = w.in(p, 1);
  if (depthwise) kernel = w.node1("Reshape", {kernel, w.ints({c.kh, c.kw, 1, c.c_out})});
  const std::string k = w.node1("Transpose", {kernel}, {ints_attr("perm", {3, 2, 0, 1})});  // HWIO -> OIHW
  std::vector<std::string> ins{x, k};
  if (p.a.inputs.size() > 2) ins.push_back(w.in(p, 2));
  std::string y = w.node1("Conv", ins,
                          {ints_attr("kernel_shape", {c.kh, c.kw}), ints_attr("strides", {c.stride_h, c.stride_w}),
                           ints_attr("dilations", {c.dil_h, c.dil_w}),
                           ints_attr("pads", pads(c.h, c.w, c.oh, c.ow, c.kh, c.kw, c.stride_h, c.stride_w, c.dil_h,
                                                  c.dil_w, c.pad_top, c.pad_left)),
                           int_attr("group", depthwise ? c.c_in : 1)});
  if (p.a.inputs.size() > 2 && p.a.params.flag_a) y = w.node1("Relu", {y});
  w.set(p, 0, w.node1("Transpose", {y}, {ints_attr("perm", kToNhwc)}), p.a.outputs[0].dtype());
}

void emit_pool2d(GraphWriter& w, const Pair& p) {
  const auto& q = p.a.params.pool;
  const auto& q2 = p.b.params.pool;
  for (auto [x, y] : {std::pair{q.h, q2.h}, {q.w, q2.w}, {q.oh, q2.oh}, {q.ow, q2.ow}})
    w.fixed(x, y, "a pooling window's spatial size");
  const bool max = p.a.type == "MaxPoolWithArgmax";
  std::vector<Attribute> attrs{ints_attr("kernel_shape", {q.pool_h, q.pool_w}),
                               ints_attr("strides", {q.stride_h, q.stride_w}),
                               ints_attr("pads", pads(q.h, q.w, q.oh, q.ow, q.pool_h, q.pool_w, q.stride_h, q.stride_w,
                                                      1, 1, q.pad_top, q.pad_left))};
  // Keras averages over the window's elements inside the input only.
  if (!max) attrs.push_back(int_attr("count_include_pad", 0));
  const std::string x = w.node1("Transpose", {w.in(p, 0)}, {ints_attr("perm", kToNchw)});
  const std::string y = w.node1(max ? "MaxPool" : "AveragePool", {x}, attrs);
  w.set(p, 0, w.node1("Transpose", {y}, {ints_attr("perm", kToNhwc)}), p.a.outputs[0].dtype());
}

void emit_batch_norm(GraphWriter& w, const Pair& p) {
  const auto& q = p.a.params;
  const DType dt = p.a.outputs[0].dtype();
  std::size_t i = 3;
  const std::string inv =
      w.node1("Reciprocal", {w.node1("Sqrt", {w.node1("Add", {w.in(p, 2), w.scalar(q.value, dt)})})});
  const std::string scale = q.has_gamma ? w.node1("Mul", {inv, w.in(p, i++)}) : inv;
  std::string y = w.node1("Mul", {w.node1("Sub", {w.in(p, 0), w.in(p, 1)}), scale});
  if (q.has_beta) y = w.node1("Add", {y, w.in(p, i)});
  w.set(p, 0, y, dt);
}

}  // namespace kiln::io::onnx
