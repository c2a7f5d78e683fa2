// Printing a traced graph: a table, Graphviz DOT, and TensorFlow's GraphDef text format.
#include "kiln/graph/concrete_function.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <sstream>

namespace kiln {

ConcreteFunction::ConcreteFunction(std::string name, std::vector<std::string> inputs, std::vector<std::string> outputs,
                                   std::vector<GraphOp> ops, std::vector<GraphOp> executed)
    : name_(std::move(name)),
      inputs_(std::move(inputs)),
      outputs_(std::move(outputs)),
      ops_(std::move(ops)),
      executed_(std::move(executed)) {}

namespace {

std::string outputs_of(const GraphOp& op) {
  std::string s;
  for (std::size_t k = 0; k < op.output_shapes.size(); ++k)
    s += (k ? ", " : "") + op.output_shapes[k].to_string() + " " + dtype_name(op.output_dtypes[k]);
  return s;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

const char* tf_dtype(DType d) {
  switch (d) {
    case DType::float32: return "DT_FLOAT";
    case DType::float64: return "DT_DOUBLE";
    case DType::int32: return "DT_INT32";
    case DType::int64: return "DT_INT64";
    case DType::uint8: return "DT_UINT8";
    case DType::int8: return "DT_INT8";
    case DType::bool_: return "DT_BOOL";
  }
  return "DT_INVALID";
}

std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return q + "\"";
}

void write_shape(std::ostringstream& o, const Shape& s, const std::string& indent) {
  o << indent << "shape {\n";
  for (int64_t d = 0; d < s.rank(); ++d) o << indent << "  dim {\n" << indent << "    size: " << s[d] << "\n" << indent << "  }\n";
  o << indent << "}\n";
}

}  // namespace

std::string ConcreteFunction::to_string() const {
  std::ostringstream o;
  o << "ConcreteFunction " << name_ << "(" << joined(inputs_) << ")\n  Returns: " << joined(outputs_) << "\n";
  std::size_t wn = 4, wt = 4, wi = 6;
  for (const auto& op : ops_) {
    wn = std::max(wn, op.name.size());
    wt = std::max(wt, op.type.size());
    wi = std::max(wi, joined(op.inputs).size());
  }
  o << "  " << pad("name", wn + 2) << pad("type", wt + 2) << pad("inputs", wi + 2) << "outputs\n";
  for (const auto& op : ops_)
    o << "  " << pad(op.name, wn + 2) << pad(op.type, wt + 2) << pad(joined(op.inputs), wi + 2) << outputs_of(op)
      << "\n";
  return o.str();
}

std::string ConcreteFunction::to_dot() const {
  std::ostringstream o;
  o << "digraph " << quoted(name_) << " {\n  node [shape=box, fontname=\"Helvetica\"];\n";
  std::map<std::string, const GraphOp*> by_name;
  for (const auto& op : ops_) {
    by_name[op.name] = &op;
    o << "  " << quoted(op.name) << " [label=" << quoted(op.name + "\\n" + op.type + "\\n" + outputs_of(op))
      << (op.type == "Placeholder" ? ", shape=ellipse" : "") << "];\n";
  }
  for (const auto& op : ops_)
    for (const auto& in : op.inputs) {
      const std::string src = in.substr(0, in.find(':'));
      const std::size_t k = in.find(':') == std::string::npos ? 0 : std::stoul(in.substr(in.find(':') + 1));
      std::string label;
      if (auto it = by_name.find(src); it != by_name.end() && k < it->second->output_shapes.size())
        label = it->second->output_shapes[k].to_string();
      o << "  " << quoted(src) << " -> " << quoted(op.name) << " [label=" << quoted(label) << "];\n";
    }
  o << "}\n";
  return o.str();
}

std::string ConcreteFunction::as_graph_def() const {
  std::ostringstream o;
  for (const auto& op : ops_) {
    o << "node {\n  name: " << quoted(op.name) << "\n  op: " << quoted(op.type) << "\n";
    for (const auto& in : op.inputs) o << "  input: " << quoted(in) << "\n";
    if (!op.output_dtypes.empty()) {
      const bool source = op.type == "Placeholder" || op.type == "Const" || op.type == "VarHandleOp";
      o << "  attr {\n    key: " << quoted(source ? "dtype" : "T") << "\n    value {\n      type: "
        << tf_dtype(op.output_dtypes[0]) << "\n    }\n  }\n";
      o << "  attr {\n    key: \"_output_shapes\"\n    value {\n      list {\n";
      for (const auto& s : op.output_shapes) write_shape(o, s, "        ");
      o << "      }\n    }\n  }\n";
    }
    o << "}\n";
  }
  return o.str();
}

std::ostream& operator<<(std::ostream& os, const ConcreteFunction& f) { return os << f.to_string(); }

}  // namespace kiln
