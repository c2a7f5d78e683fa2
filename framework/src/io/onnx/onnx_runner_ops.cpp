// The ONNX ops GraphRunner runs, each as Kiln ops (so they differentiate).
// Sizes computed from shapes stay on the host.
#include <limits>

#include "io/onnx/onnx_reader.h"
#include "io/onnx/onnx_runner.h"
#include "kiln/kiln.h"

namespace kiln::io::onnx {

namespace {

using Out = std::vector<RunValue>;

Out one(const Tensor& t) { return {RunValue{t, std::nullopt}}; }
Out host(const std::vector<int64_t>& v, bool scalar = false) {
  Tensor t = Tensor(v, scalar ? Shape{} : Shape{static_cast<int64_t>(v.size())});
  return {RunValue{t, v}};
}

template <Tensor (*F)(const Tensor&)>
OpImpl unary_impl() {
  return [](const OpContext& c) { return one(F(c.tensor(0))); };
}
template <Tensor (*F)(const Tensor&, const Tensor&)>
OpImpl binary_impl() {
  return [](const OpContext& c) { return one(F(c.tensor(0), c.tensor(1))); };
}

/// Integer arithmetic on host sizes (one side may be a single value); tensors otherwise.
template <Tensor (*F)(const Tensor&, const Tensor&), class Op>
OpImpl arithmetic(Op op) {
  return [op](const OpContext& c) {
    const RunValue *a = c.in.at(0), *b = c.in.at(1);
    if (a && b && a->host && b->host && (a->host->size() == b->host->size() || a->host->size() == 1 || b->host->size() == 1)) {
      const auto &x = *a->host, &y = *b->host;
      std::vector<int64_t> r(std::max(x.size(), y.size()));
      for (std::size_t i = 0; i < r.size(); ++i) r[i] = op(x[x.size() == 1 ? 0 : i], y[y.size() == 1 ? 0 : i]);
      return host(r, a->t.rank() == 0 && b->t.rank() == 0);
    }
    return one(F(c.tensor(0), c.tensor(1)));
  };
}

std::vector<int> as_int(const std::vector<int64_t>& v) { return std::vector<int>(v.begin(), v.end()); }

Tensor reciprocal(const Tensor& x) { return divide(Tensor(1.0, x.dtype()), x); }
Tensor is_inf(const Tensor& x) { return logical_and(logical_not(isfinite(x)), logical_not(isnan(x))); }

Out reshape_op(const OpContext& c) {
  const Tensor& x = c.tensor(0);
  std::vector<int64_t> dims = c.ints(1);
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i] == 0) {
      if (static_cast<int64_t>(i) >= x.rank()) c.fail("a 0 in the shape has no input dimension to copy");
      dims[i] = x.shape()[static_cast<int64_t>(i)];
    }
  return one(reshape(x, Shape(dims)));
}

Out expand_op(const OpContext& c) {
  const Tensor& x = c.tensor(0);
  const std::vector<int64_t> want = c.ints(1);
  const auto rank = std::max<std::size_t>(want.size(), static_cast<std::size_t>(x.rank()));
  std::vector<int64_t> out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const int64_t a = i + static_cast<std::size_t>(x.rank()) >= rank ? x.shape()[static_cast<int64_t>(i + x.rank() - rank)] : 1;
    const int64_t b = i + want.size() >= rank ? want[i + want.size() - rank] : 1;
    if (a != b && a != 1 && b != 1) c.fail("cannot broadcast " + x.shape().to_string() + " to " + Shape(want).to_string());
    out[i] = a == 1 ? b : a;
  }
  return one(broadcast_to(x, Shape(out)));
}

Out gather_op(const OpContext& c) {
  const int64_t axis = c.attr_int("axis", 0);
  const RunValue *d = c.in.at(0), *i = c.in.at(1);
  if (d && i && d->host && i->host && axis == 0) {
    std::vector<int64_t> r;
    for (int64_t k : *i->host) {
      const int64_t at = k < 0 ? k + static_cast<int64_t>(d->host->size()) : k;
      if (at < 0 || at >= static_cast<int64_t>(d->host->size())) c.fail("index " + std::to_string(k) + " is out of range");
      r.push_back((*d->host)[static_cast<std::size_t>(at)]);
    }
    return host(r, i->t.rank() == 0);
  }
  return one(gather(c.tensor(0), c.tensor(1), static_cast<int>(axis)));
}

Out concat_op(const OpContext& c) {
  bool all_host = true;
  for (const auto* v : c.in) all_host = all_host && v && v->host;
  if (all_host) {
    std::vector<int64_t> r;
    for (const auto* v : c.in) r.insert(r.end(), v->host->begin(), v->host->end());
    return host(r);
  }
  std::vector<Tensor> ts;
  for (std::size_t k = 0; k < c.in.size(); ++k) ts.push_back(c.tensor(k));
  return one(concat(ts, static_cast<int>(c.attr_int("axis", 0))));
}

Out slice_op(const OpContext& c) {
  const Tensor& x = c.tensor(0);
  const auto starts = c.ints(1), ends = c.ints(2);
  std::vector<int64_t> axes = c.in.size() > 3 && c.in[3] ? c.ints(3) : std::vector<int64_t>{};
  if (axes.empty())
    for (std::size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  const std::vector<int64_t> steps = c.in.size() > 4 && c.in[4] ? c.ints(4) : std::vector<int64_t>(axes.size(), 1);
  std::vector<Index> idx(static_cast<std::size_t>(x.rank()), Index(Slice()));
  for (std::size_t k = 0; k < axes.size() && k < starts.size() && k < ends.size() && k < steps.size(); ++k) {
    const int64_t a = axes[k] < 0 ? axes[k] + x.rank() : axes[k];
    if (a < 0 || a >= x.rank()) c.fail("axis " + std::to_string(axes[k]) + " is out of range for " + x.shape().to_string());
    if (steps[k] < 1) c.fail("steps below 1 are not supported");
    const bool open = ends[k] >= x.shape()[a];
    idx[static_cast<std::size_t>(a)] = Slice(starts[k], open ? std::nullopt : std::optional<int64_t>(ends[k]), steps[k]);
  }
  return one(slice(x, idx));
}

/// Kiln's padding name for ONNX pads [top, left, bottom, right]: "valid", "same", or none.
std::string padding_of(const OpContext& c, const Shape& nchw, const std::vector<int64_t>& k,
                       const std::vector<int64_t>& s, const std::vector<int64_t>& d) {
  std::vector<int64_t> pads = c.attr_ints("pads");
  if (pads.empty() || std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; })) return "valid";
  for (int axis = 0; axis < 2; ++axis) {
    const int64_t n = nchw[2 + axis], out = (n + s[axis] - 1) / s[axis];
    const int64_t total = std::max<int64_t>(0, (out - 1) * s[axis] + (k[axis] - 1) * d[axis] + 1 - n);
    if (pads[axis] != total / 2 || pads[axis + 2] != total - total / 2)
      c.fail("pads [" + std::to_string(pads[0]) + ", " + std::to_string(pads[1]) + ", " + std::to_string(pads[2]) + ", " +
             std::to_string(pads[3]) + "] are neither 'valid' nor 'same' padding");
  }
  return "same";
}

std::vector<int64_t> pair_attr(const OpContext& c, const std::string& name) {
  auto v = c.attr_ints(name);
  return v.empty() ? std::vector<int64_t>{1, 1} : v;
}

Out conv_op(const OpContext& c) {
  const bool nhwc = c.attr_int(kNhwcAttribute, 0) != 0;
  const Tensor& x = c.tensor(0);
  const Shape nchw = nhwc ? Shape{x.shape()[0], x.shape()[3], x.shape()[1], x.shape()[2]} : x.shape();
  const int64_t group = c.attr_int("group", 1);
  // One input channel per group is the depthwise convolution Kiln exports.
  const bool depthwise = group > 1 && x.rank() == 4 && group == nchw[1] && c.tensor(1).shape()[1] == 1;
  if (x.rank() != 4 || (group != 1 && !depthwise))
    c.fail("only 2-D convolutions with group 1, or one input channel per group, are supported; received group " +
           std::to_string(group) + " for an input of shape " + x.shape().to_string());
  Tensor w = transpose(c.tensor(1), {2, 3, 1, 0});  // OIHW -> HWIO
  if (depthwise) w = reshape(w, {w.shape()[0], w.shape()[1], group, w.shape()[3] / group});
  const auto s = pair_attr(c, "strides"), d = pair_attr(c, "dilations");
  Conv2DOptions o{{int(s[0]), int(s[1])}, padding_of(c, nchw, {w.shape()[0], w.shape()[1]}, s, d), {int(d[0]), int(d[1])}};
  const Tensor in = nhwc ? x : transpose(x, {0, 2, 3, 1});
  const bool relu_after = c.attr_int(kReluAttribute, 0) != 0;
  const bool has_bias = c.in.size() > 2 && c.in[2];
  Tensor y;
  if (depthwise) {
    y = depthwise_conv2d(in, w, o);
    if (has_bias) y = add(y, c.tensor(2));
    if (relu_after) y = relu(y);
  } else {
    y = has_bias ? conv2d_bias(in, w, c.tensor(2), o, relu_after)
                 : (relu_after ? relu(conv2d(in, w, o)) : conv2d(in, w, o));
  }
  return one(nhwc ? y : transpose(y, {0, 3, 1, 2}));
}

Out pool_op(const OpContext& c) {
  const bool nhwc = c.attr_int(kNhwcAttribute, 0) != 0;
  const Tensor& x = c.tensor(0);
  const auto k = c.attr_ints("kernel_shape");
  if (x.rank() != 4 || k.size() != 2) c.fail("only 2-D pooling is supported");
  if (c.node.op_type == "AveragePool" && c.attr_int("count_include_pad", 0) != 0)
    c.fail("count_include_pad = 1 is not supported (Keras averages over the input only)");
  const auto s = pair_attr(c, "strides");
  const Shape nchw = nhwc ? Shape{x.shape()[0], x.shape()[3], x.shape()[1], x.shape()[2]} : x.shape();
  Pool2DOptions o{{int(k[0]), int(k[1])}, {int(s[0]), int(s[1])}, padding_of(c, nchw, k, s, {1, 1})};
  const Tensor in = nhwc ? x : transpose(x, {0, 2, 3, 1});
  const Tensor y = c.node.op_type == "MaxPool" ? max_pool2d(in, o) : avg_pool2d(in, o);
  return one(nhwc ? y : transpose(y, {0, 3, 1, 2}));
}

Out reduce_op(const OpContext& c) {
  std::vector<int64_t> axes = c.attr_ints("axes");
  if (c.in.size() > 1 && c.in[1]) axes = c.ints(1);
  const bool keep = c.attr_int("keepdims", 1) != 0;
  const Axes ax = axes.empty() ? Axes() : Axes(as_int(axes));
  const Tensor& x = c.tensor(0);
  const std::string& t = c.node.op_type;
  return one(t == "ReduceSum" ? sum(x, ax, keep) : t == "ReduceMax" ? max(x, ax, keep)
             : t == "ReduceMin" ? min(x, ax, keep) : prod(x, ax, keep));
}

Out arg_op(const OpContext& c) {
  const int axis = static_cast<int>(c.attr_int("axis", 0));
  Tensor y = c.node.op_type == "ArgMax" ? argmax(c.tensor(0), axis) : argmin(c.tensor(0), axis);
  if (c.attr_int("keepdims", 1)) y = expand_dims(y, axis < 0 ? axis + static_cast<int>(c.tensor(0).rank()) : axis);
  return one(cast(y, DType::int64));
}

Out one_hot_op(const OpContext& c) {
  if (c.attr_int("axis", -1) != -1) c.fail("only axis -1 is supported");
  const auto depth = c.ints(1);
  const Tensor& values = c.tensor(2);
  const Tensor hot = one_hot(cast(c.tensor(0), DType::int64), depth.at(0), DType::bool_);
  return one(where(hot, values[1], values[0]));
}

Out pad_op(const OpContext& c) {
  Tensor x = c.tensor(0);
  const auto pads = c.ints(1);
  const double value = c.in.size() > 2 && c.in[2] ? cast(c.tensor(2), DType::float64).item<double>() : 0.0;
  const auto rank = static_cast<std::size_t>(x.rank());
  if (pads.size() != 2 * rank) c.fail("pads has " + std::to_string(pads.size()) + " entries for rank " + std::to_string(rank));
  for (std::size_t a = 0; a < rank; ++a) {
    auto block = [&](int64_t n) {
      Shape s = x.shape();
      s[static_cast<int64_t>(a)] = n;
      return fill(s, value, x.dtype());
    };
    if (pads[a] < 0 || pads[a + rank] < 0) c.fail("negative pads are not supported");
    if (pads[a] || pads[a + rank]) x = concat({block(pads[a]), x, block(pads[a + rank])}, static_cast<int>(a));
  }
  return one(x);
}

Out constant_op(const OpContext& c) {
  for (const auto& a : c.node.attributes)
    if (a.name == "value") {
      Tensor t = tensor_from(decode_tensor(a.tensor, c.runner.file()));
      return {RunValue{t, t.dtype() == DType::int64 && t.rank() <= 1 ? std::optional(t.to_vector<int64_t>()) : std::nullopt}};
    }
  c.fail("only a 'value' tensor is supported");
}

}  // namespace

const std::map<std::string, OpImpl>& runner_ops() {
  static const std::map<std::string, OpImpl> ops = [] {
    std::map<std::string, OpImpl> table{
      {"Add", arithmetic<add>([](int64_t a, int64_t b) { return a + b; })},
      {"Sub", arithmetic<subtract>([](int64_t a, int64_t b) { return a - b; })},
      {"Mul", arithmetic<multiply>([](int64_t a, int64_t b) { return a * b; })},
      {"Div", arithmetic<divide>([](int64_t a, int64_t b) { return b ? a / b : 0; })},
      {"Pow", binary_impl<kiln::pow>()}, {"Max", binary_impl<maximum>()}, {"Min", binary_impl<minimum>()},
      {"Equal", binary_impl<equal>()}, {"Less", binary_impl<less>()}, {"LessOrEqual", binary_impl<less_equal>()},
      {"Greater", binary_impl<greater>()}, {"GreaterOrEqual", binary_impl<greater_equal>()},
      {"And", binary_impl<logical_and>()}, {"Or", binary_impl<logical_or>()}, {"Mod", binary_impl<floor_mod>()},
      {"Neg", unary_impl<neg>()}, {"Abs", unary_impl<kiln::abs>()}, {"Sign", unary_impl<sign>()}, {"Exp", unary_impl<kiln::exp>()},
      {"Log", unary_impl<kiln::log>()}, {"Sqrt", unary_impl<kiln::sqrt>()}, {"Sin", unary_impl<kiln::sin>()},
      {"Cos", unary_impl<kiln::cos>()}, {"Tanh", unary_impl<kiln::tanh>()}, {"Erf", unary_impl<kiln::erf>()},
      {"Sigmoid", unary_impl<sigmoid>()}, {"Relu", unary_impl<relu>()}, {"Softplus", unary_impl<softplus>()},
      {"Floor", unary_impl<kiln::floor>()}, {"Round", unary_impl<kiln::round>()}, {"IsNaN", unary_impl<isnan>()},
      {"IsInf", unary_impl<is_inf>()}, {"Not", unary_impl<logical_not>()}, {"Reciprocal", unary_impl<reciprocal>()},
      {"Identity", [](const OpContext& c) { return Out{*c.in.at(0)}; }},
      {"Cast", [](const OpContext& c) {
         const auto to = c.attr_int("to", 1);
         for (DType d : {DType::float32, DType::float64, DType::int32, DType::int64, DType::uint8, DType::bool_})
           if (onnx_dtype(d) == to) {
             if (d == DType::int64 && c.in.at(0)->host) return Out{*c.in[0]};
             return one(cast(c.tensor(0), d));
           }
         c.fail("cast to element type " + std::to_string(to) + " is not supported");
       }},
      {"Where", [](const OpContext& c) { return one(where(c.tensor(0), c.tensor(1), c.tensor(2))); }},
      {"Expand", expand_op},
      {"Shape", [](const OpContext& c) { return host(c.tensor(0).shape().dims()); }},
      {"Gather", gather_op}, {"Concat", concat_op}, {"Reshape", reshape_op}, {"Slice", slice_op},
      {"Transpose", [](const OpContext& c) { return one(transpose(c.tensor(0), as_int(c.attr_ints("perm")))); }},
      {"MatMul", [](const OpContext& c) { return one(matmul(c.tensor(0), c.tensor(1))); }},
      {"Conv", conv_op}, {"MaxPool", pool_op}, {"AveragePool", pool_op},
      {"Softmax", [](const OpContext& c) { return one(softmax(c.tensor(0), int(c.attr_int("axis", -1)))); }},
      {"LogSoftmax", [](const OpContext& c) { return one(log_softmax(c.tensor(0), int(c.attr_int("axis", -1)))); }},
      {"ReduceSum", reduce_op}, {"ReduceMax", reduce_op}, {"ReduceMin", reduce_op}, {"ReduceProd", reduce_op},
      {"ArgMax", arg_op}, {"ArgMin", arg_op}, {"OneHot", one_hot_op}, {"Pad", pad_op}, {"Constant", constant_op},
    };
    add_recurrent_ops(table);
    return table;
  }();
  return ops;
}

}  // namespace kiln::io::onnx
