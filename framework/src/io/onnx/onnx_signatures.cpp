// What each op the runner knows takes: how many inputs (the first `required`
// of them named), how many outputs, and the type of each attribute it reads.
// Checked for every node when a graph is loaded, so that neither the layout
// rewrites nor a call can meet a node of the wrong shape.
#include <limits>
#include <map>

#include "io/onnx/onnx_runner.h"
#include "kiln/core/error.h"

namespace kiln::io::onnx {

namespace {

constexpr int kMany = std::numeric_limits<int>::max();

struct AttrRule {
  Attribute::Kind kind;
  std::size_t length = 0;  // for lists: the only length accepted (0: any)
  bool required = false;
};

struct OpSignature {
  int min_in, max_in, required_in, min_out, max_out;
  std::map<std::string, AttrRule> attrs;
};

std::map<std::string, OpSignature> make_signatures() {
  using A = Attribute;
  std::map<std::string, OpSignature> s;
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Less", "LessOrEqual", "Greater",
                         "GreaterOrEqual", "And", "Or", "Mod", "Expand", "MatMul"})
    s[op] = {2, 2, 2, 1, 1, {}};
  for (const char* op : {"Neg", "Abs", "Sign", "Exp", "Log", "Sqrt", "Sin", "Cos", "Tanh", "Erf", "Sigmoid", "Relu",
                         "Softplus", "Floor", "Round", "IsNaN", "IsInf", "Not", "Reciprocal", "Identity", "Shape"})
    s[op] = {1, 1, 1, 1, 1, {}};
  s["Mod"].attrs = {{"fmod", {A::kInt}}};
  s["Cast"] = {1, 1, 1, 1, 1, {{"to", {A::kInt}}}};
  s["Where"] = {3, 3, 3, 1, 1, {}};
  s["Gather"] = {2, 2, 2, 1, 1, {{"axis", {A::kInt}}}};
  s["Concat"] = {1, kMany, 1, 1, 1, {{"axis", {A::kInt}}}};
  s["Reshape"] = {2, 2, 2, 1, 1, {{"allowzero", {A::kInt}}}};
  s["Slice"] = {3, 5, 3, 1, 1, {}};
  s["Transpose"] = {1, 1, 1, 1, 1, {{"perm", {A::kInts}}}};
  const std::map<std::string, AttrRule> window = {
      {"strides", {A::kInts, 2}}, {"pads", {A::kInts, 4}}, {kNhwcAttribute, {A::kInt}}};
  s["Conv"] = {2, 3, 2, 1, 1, window};
  s["Conv"].attrs.insert({{"dilations", {A::kInts, 2}}, {"group", {A::kInt}}, {"kernel_shape", {A::kInts, 2}},
                          {kReluAttribute, {A::kInt}}});
  for (const char* op : {"MaxPool", "AveragePool"}) {
    s[op] = {1, 1, 1, 1, 1, window};
    s[op].attrs.insert({{"kernel_shape", {A::kInts, 2, true}}, {"count_include_pad", {A::kInt}}});
  }
  for (const char* op : {"Softmax", "LogSoftmax"}) s[op] = {1, 1, 1, 1, 1, {{"axis", {A::kInt}}}};
  for (const char* op : {"ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"})
    s[op] = {1, 2, 1, 1, 1, {{"axes", {A::kInts}}, {"keepdims", {A::kInt}}}};
  for (const char* op : {"ArgMax", "ArgMin"}) s[op] = {1, 1, 1, 1, 1, {{"axis", {A::kInt}}, {"keepdims", {A::kInt}}}};
  s["OneHot"] = {3, 3, 3, 1, 1, {{"axis", {A::kInt}}}};
  s["Pad"] = {2, 3, 2, 1, 1, {{"mode", {A::kString}}}};
  s["Constant"] = {0, 0, 0, 1, 1, {{"value", {A::kTensor, 0, true}}}};
  // M and cond may be omitted (""); the body's arity is checked with the body.
  s["Loop"] = {2, kMany, 0, 0, kMany, {{"body", {A::kGraph, 0, true}}}};
  const std::map<std::string, AttrRule> recurrent = {
      {"hidden_size", {A::kInt, 0, true}}, {"layout", {A::kInt}}, {"direction", {A::kString}},
      {"linear_before_reset", {A::kInt}}, {"activations", {A::kStrings}}};
  s["RNN"] = {3, 6, 3, 0, 2, recurrent};
  s["GRU"] = {3, 6, 3, 0, 2, recurrent};
  s["LSTM"] = {3, 8, 3, 0, 3, recurrent};
  for (const char* op : {"Squeeze", "Unsqueeze"}) s[op] = {1, 2, 1, 1, 1, {{"axes", {A::kInts}}}};
  return s;
}

const char* kind_name(Attribute::Kind k) {
  switch (k) {
    case Attribute::kFloat: return "a float";
    case Attribute::kInt: return "an int";
    case Attribute::kString: return "a string";
    case Attribute::kTensor: return "a tensor";
    case Attribute::kGraph: return "a graph";
    case Attribute::kFloats: return "a list of floats";
    case Attribute::kInts: return "a list of ints";
    case Attribute::kStrings: return "a list of strings";
    case Attribute::kUndefined: break;
  }
  return "an unknown kind";
}

std::string count_text(int lo, int hi) {
  if (lo == hi) return std::to_string(lo);
  return hi == kMany ? "at least " + std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
}

void check_attributes(const NodeProto& n, const OpSignature& sig, const std::string& where) {
  for (const auto& a : n.attributes) {
    const auto rule = sig.attrs.find(a.name);
    if (rule == sig.attrs.end()) continue;  // attributes the runner does not read are harmless
    if (a.kind != rule->second.kind)
      throw IOError(where + "attribute '" + a.name + "' must be " + kind_name(rule->second.kind) + ", got " + kind_name(a.kind));
    const std::size_t len = a.kind == Attribute::kInts ? a.ints.size() : a.kind == Attribute::kStrings ? a.strings.size() : 0;
    if (rule->second.length && len != rule->second.length)
      throw IOError(where + "attribute '" + a.name + "' must have " + std::to_string(rule->second.length) +
                    " values, got " + std::to_string(len));
  }
  for (const auto& [name, rule] : sig.attrs) {
    if (!rule.required) continue;
    bool found = false;
    for (const auto& a : n.attributes) found = found || a.name == name;
    if (!found) throw IOError(where + "the required attribute '" + name + "' is missing");
  }
}

}  // namespace

void check_node_signatures(const GraphProto& g, const std::string& file) {
  static const std::map<std::string, OpSignature> signatures = make_signatures();
  for (const auto& n : g.nodes) {
    const std::string where = "'" + file + "': node '" + n.name + "' (" + n.op_type + "): ";
    const auto found = signatures.find(n.op_type);
    if (found == signatures.end())
      throw IOError("'" + file + "': node '" + n.name + "' has op type '" + n.op_type +
                    "', which Kiln cannot run (it reads the ops its own ONNX export writes)");
    const OpSignature& sig = found->second;
    const auto ins = static_cast<int>(std::min<std::size_t>(n.inputs.size(), kMany));
    const auto outs = static_cast<int>(std::min<std::size_t>(n.outputs.size(), kMany));
    if (ins < sig.min_in || ins > sig.max_in)
      throw IOError(where + "takes " + count_text(sig.min_in, sig.max_in) + " inputs, got " + std::to_string(ins));
    if (outs < sig.min_out || outs > sig.max_out)
      throw IOError(where + "makes " + count_text(sig.min_out, sig.max_out) + " outputs, got " + std::to_string(outs));
    for (int i = 0; i < sig.required_in; ++i)
      if (n.inputs[static_cast<std::size_t>(i)].empty())
        throw IOError(where + "input " + std::to_string(i) + " is required, but its name is empty");
    if (sig.min_out > 0 && n.outputs[0].empty()) throw IOError(where + "its first output has no name");
    check_attributes(n, sig, where);
  }
}

}  // namespace kiln::io::onnx
