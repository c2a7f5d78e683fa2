// Each recorded backend call as standard ONNX ops: element-wise maths,
// reductions, indexing and constants here; the rest in onnx_emitters.h.
#include <functional>
#include <map>

#include "backend/op_types.h"
#include "io/onnx/onnx_emitters.h"

namespace kiln::io::onnx {

namespace {

using backend::BinaryOp;
using backend::UnaryOp;

bool is_float(DType d) { return d == DType::float32 || d == DType::float64; }

std::string as_bool(GraphWriter& w, const std::string& v, DType d) { return d == DType::bool_ ? v : w.cast(v, DType::bool_); }

void unary(GraphWriter& w, const Pair& p) {
  const std::string x = w.in(p, 0);
  const DType dt = p.a.inputs[0].dtype();
  auto one = [&] { return w.scalar(1, dt); };
  static const std::map<int, const char*> direct{
      {int(UnaryOp::neg), "Neg"},         {int(UnaryOp::abs), "Abs"},         {int(UnaryOp::sign), "Sign"},
      {int(UnaryOp::exp), "Exp"},         {int(UnaryOp::log), "Log"},         {int(UnaryOp::sqrt), "Sqrt"},
      {int(UnaryOp::sin), "Sin"},         {int(UnaryOp::cos), "Cos"},         {int(UnaryOp::tanh), "Tanh"},
      {int(UnaryOp::erf), "Erf"},         {int(UnaryOp::sigmoid), "Sigmoid"}, {int(UnaryOp::relu), "Relu"},
      {int(UnaryOp::softplus), "Softplus"}, {int(UnaryOp::floor), "Floor"}, {int(UnaryOp::round), "Round"}};
  const int op = p.a.unary;
  if (auto it = direct.find(op); it != direct.end()) return w.set(p, 0, w.node1(it->second, {x}), dt);
  switch (static_cast<UnaryOp>(op)) {
    case UnaryOp::log1p: return w.set(p, 0, w.node1("Log", {w.node1("Add", {x, one()})}), dt);
    case UnaryOp::expm1: return w.set(p, 0, w.node1("Sub", {w.node1("Exp", {x}), one()}), dt);
    case UnaryOp::rsqrt: return w.set(p, 0, w.node1("Reciprocal", {w.node1("Sqrt", {x})}), dt);
    case UnaryOp::square: return w.set(p, 0, w.node1("Mul", {x, x}), dt);
    case UnaryOp::isnan:
      return w.set(p, 0, is_float(dt) ? w.node1("IsNaN", {x}) : w.node1("Not", {w.node1("Equal", {x, x})}), DType::bool_);
    case UnaryOp::isfinite: {
      if (!is_float(dt)) return w.set(p, 0, w.node1("Equal", {x, x}), DType::bool_);
      const std::string bad = w.node1("Or", {w.node1("IsNaN", {x}), w.node1("IsInf", {x})});
      return w.set(p, 0, w.node1("Not", {bad}), DType::bool_);
    }
    case UnaryOp::logical_not: return w.set(p, 0, w.node1("Not", {as_bool(w, x, dt)}), DType::bool_);
    default: w.fail("no ONNX form for this element-wise op");
  }
}

void binary(GraphWriter& w, const Pair& p) {
  const std::string a = w.in(p, 0), b = w.in(p, 1);
  const DType dt = p.a.inputs[0].dtype();
  static const std::map<int, const char*> arithmetic{
      {int(BinaryOp::add), "Add"}, {int(BinaryOp::sub), "Sub"},         {int(BinaryOp::mul), "Mul"},
      {int(BinaryOp::div), "Div"}, {int(BinaryOp::pow), "Pow"},         {int(BinaryOp::maximum), "Max"},
      {int(BinaryOp::minimum), "Min"}};
  static const std::map<int, const char*> comparison{
      {int(BinaryOp::eq), "Equal"},   {int(BinaryOp::lt), "Less"},           {int(BinaryOp::le), "LessOrEqual"},
      {int(BinaryOp::gt), "Greater"}, {int(BinaryOp::ge), "GreaterOrEqual"}};
  const int op = p.a.binary;
  if (auto it = arithmetic.find(op); it != arithmetic.end()) return w.set(p, 0, w.node1(it->second, {a, b}), dt);
  if (auto it = comparison.find(op); it != comparison.end())
    return w.set(p, 0, w.node1(it->second, {a, b}), DType::bool_);
  switch (static_cast<BinaryOp>(op)) {
    case BinaryOp::ne: return w.set(p, 0, w.node1("Not", {w.node1("Equal", {a, b})}), DType::bool_);
    case BinaryOp::logical_and:
    case BinaryOp::logical_or: {
      const char* type = static_cast<BinaryOp>(op) == BinaryOp::logical_and ? "And" : "Or";
      return w.set(p, 0, w.node1(type, {as_bool(w, a, dt), as_bool(w, b, p.a.inputs[1].dtype())}), DType::bool_);
    }
    case BinaryOp::floor_mod:
      if (!is_float(dt)) return w.set(p, 0, w.node1("Mod", {a, b}, {int_attr("fmod", 0)}), dt);
      return w.set(p, 0, w.node1("Sub", {a, w.node1("Mul", {w.node1("Floor", {w.node1("Div", {a, b})}), b})}), dt);
    case BinaryOp::atan2: {  // ONNX has no Atan2: atan(a / b), shifted by ±π where b < 0
      const std::string pi = w.scalar(3.141592653589793, dt), minus_pi = w.scalar(-3.141592653589793, dt);
      const std::string zero = w.scalar(0, dt);
      const std::string shift = w.node1("Where", {w.node1("GreaterOrEqual", {a, zero}), pi, minus_pi});
      const std::string fix = w.node1("Where", {w.node1("Less", {b, zero}), shift, zero});
      return w.set(p, 0, w.node1("Add", {w.node1("Atan", {w.node1("Div", {a, b})}), fix}), dt);
    }
    case BinaryOp::relu_grad: {
      const std::string live = w.node1("Greater", {a, w.scalar(0, dt)});
      return w.set(p, 0, w.node1("Where", {live, b, w.scalar(0, p.a.inputs[1].dtype())}), p.a.inputs[1].dtype());
    }
    default: w.fail("no ONNX form for this element-wise op");
  }
}

void reduce(GraphWriter& w, const Pair& p) {
  const Shape &x = p.a.inputs[0].shape(), &y = p.a.outputs[0].shape();
  const Shape &xb = p.b.inputs[0].shape(), &yb = p.b.outputs[0].shape();
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (x[d] != y[d] || xb[d] != yb[d]) axes.push_back(d);
  const DType dt = p.a.outputs[0].dtype();
  if (axes.empty()) return w.set(p, 0, w.in(p, 0), dt);
  static const std::map<std::string, const char*> names{
      {"Sum", "ReduceSum"}, {"Max", "ReduceMax"}, {"Min", "ReduceMin"}, {"Prod", "ReduceProd"}};
  const std::string type = names.at(p.a.type);
  // ReduceSum takes its axes as an input from opset 13, the others from opset 18.
  if (type == "ReduceSum" || w.opset() >= 18)
    return w.set(p, 0, w.node1(type, {w.in(p, 0), w.ints(axes)}, {int_attr("keepdims", 1)}), dt);
  w.set(p, 0, w.node1(type, {w.in(p, 0)}, {ints_attr("axes", axes), int_attr("keepdims", 1)}), dt);
}

void arg_reduce(GraphWriter& w, const Pair& p) {
  const int axis = p.a.params.axis;
  const std::string y = w.node1(p.a.type, {w.in(p, 0)}, {int_attr("axis", axis), int_attr("keepdims", 1)});
  Shape ka = p.a.inputs[0].shape(), kb = p.b.inputs[0].shape();
  ka[axis] = kb[axis] = 1;
  w.set(p, 0, y, DType::int64, ka, kb);
}

void gather(GraphWriter& w, const Pair& p) {
  const int axis = p.a.params.axis;
  const std::string y = w.node1("Gather", {w.in(p, 0), w.in(p, 1)}, {int_attr("axis", axis)});
  auto shape = [&](const backend::Node& n) {
    const auto& ps = n.inputs[0].shape().dims();
    std::vector<int64_t> d(ps.begin(), ps.begin() + axis);
    for (int64_t k : n.inputs[1].shape().dims()) d.push_back(k);
    d.insert(d.end(), ps.begin() + axis + 1, ps.end());
    return Shape(d);
  };
  w.set(p, 0, y, p.a.inputs[0].dtype(), shape(p.a), shape(p.b));
}

void one_hot(GraphWriter& w, const Pair& p) {
  const DType dt = p.a.outputs[0].dtype();
  const std::string values = w.node1("Concat", {w.node1("Reshape", {w.scalar(0, dt), w.ints({1})}),
                                                w.node1("Reshape", {w.scalar(1, dt), w.ints({1})})},
                                     {int_attr("axis", 0)});
  const int64_t depth = w.fixed(p.a.params.depth, p.b.params.depth, "a one-hot depth");
  const std::string y = w.node1("OneHot", {w.in(p, 0), w.ints({depth}), values}, {int_attr("axis", -1)});
  auto shape = [&](const backend::Node& n) {
    Shape s = n.inputs[0].shape();
    s.dims().push_back(depth);
    return s;
  };
  w.set(p, 0, y, dt, shape(p.a), shape(p.b));
}

void fill(GraphWriter& w, const Pair& p) {
  const DType dt = p.a.outputs[0].dtype();
  const std::string shape = w.shape_tensor(p.a.outputs[0].shape(), p.b.outputs[0].shape());
  w.set(p, 0, w.node1("Expand", {w.scalar(p.a.params.value, dt), shape}), dt);
}

using Emitter = std::function<void(GraphWriter&, const Pair&)>;

const std::map<std::string, Emitter>& emitters() {
  static const std::map<std::string, Emitter> table{
      {"Fill", fill},
      {"Cast", [](GraphWriter& w, const Pair& p) {
         w.set(p, 0, w.cast(w.in(p, 0), p.a.outputs[0].dtype()), p.a.outputs[0].dtype());
       }},
      {"StridedCopy", emit_strided_copy},
      {"StridedAdd", emit_strided_copy},
      {"Sum", reduce}, {"Max", reduce}, {"Min", reduce}, {"Prod", reduce},
      {"ArgMax", arg_reduce}, {"ArgMin", arg_reduce},
      {"SelectV2", [](GraphWriter& w, const Pair& p) {
         const std::string c = as_bool(w, w.in(p, 0), p.a.inputs[0].dtype());
         w.set(p, 0, w.node1("Where", {c, w.in(p, 1), w.in(p, 2)}), p.a.inputs[1].dtype());
       }},
      {"GatherV2", gather},
      {"OneHot", one_hot},
      {"MatMul", emit_matmul}, {"BatchMatMulV2", emit_matmul}, {"DotProductAttention", emit_attention},
      {"Softmax", [](GraphWriter& w, const Pair& p) {
         w.set(p, 0, w.node1(p.a.type, {w.in(p, 0)}, {int_attr("axis", p.a.params.axis)}), p.a.outputs[0].dtype());
       }},
      {"LogSoftmax", [](GraphWriter& w, const Pair& p) {
         w.set(p, 0, w.node1(p.a.type, {w.in(p, 0)}, {int_attr("axis", p.a.params.axis)}), p.a.outputs[0].dtype());
       }},
      {"Conv2D", emit_conv2d}, {"Conv2DBias", emit_conv2d}, {"Conv2DBiasRelu", emit_conv2d},
      {"DepthwiseConv2dNative", emit_conv2d},
      {"MaxPoolWithArgmax", emit_pool2d}, {"AvgPool", emit_pool2d},
      {"FusedBatchNormV3Inference", emit_batch_norm},
      // A copy (a variable's read among them) is the same value under the destination's name.
      {"Identity", [](GraphWriter& w, const Pair& p) { w.set(p, 0, w.in(p, 0), p.a.inputs[0].dtype()); }},
      {"ReadVariableOp", [](GraphWriter& w, const Pair& p) { w.set(p, 0, w.in(p, 0), p.a.inputs[0].dtype()); }},
      {"BiasAdd", [](GraphWriter& w, const Pair& p) {
         w.set(p, 0, w.node1("Add", {w.in(p, 0), w.in(p, 1)}), p.a.outputs[0].dtype());
       }},
      {"BiasAddRelu", [](GraphWriter& w, const Pair& p) {
         w.set(p, 0, w.node1("Relu", {w.node1("Add", {w.in(p, 0), w.in(p, 1)})}), p.a.outputs[0].dtype());
       }},
  };
  return table;
}

}  // namespace

bool emit_composite(GraphWriter& w, const Pair& p) {
  return p.a.type == "Recurrence" && emit_recurrence(w, p);
}

void emit_op(GraphWriter& w, const Pair& p) {
  if (p.a.unary >= 0) return unary(w, p);
  if (p.a.binary >= 0) return binary(w, p);
  const auto& table = emitters();
  if (auto it = table.find(p.a.type); it != table.end()) return it->second(w, p);
  if (p.a.type == "Dropout" || p.a.type == "FusedBatchNormV3")
    w.fail("it is a training-mode op; export the model's inference call (training = false)");
  w.fail("ONNX export has no form for it (it belongs to training: gradients, losses or optimizer updates)");
}

}  // namespace kiln::io::onnx
