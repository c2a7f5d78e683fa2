#include "io/onnx/onnx_runner.h"

#include <cstring>

#include "io/onnx/onnx_reader.h"
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"

namespace kiln::io::onnx {

Tensor tensor_from(const TensorData& t) {
  Tensor out = Tensor::empty(Shape(t.dims), t.dtype);
  if (!t.raw.empty()) std::memcpy(out.raw_data(), t.raw.data(), t.raw.size());
  return out;
}

std::string tensor_text(const Tensor& t) {
  std::string s = dtype_name(t.dtype()) + "[";
  for (int64_t d = 0; d < t.rank(); ++d) s += (d ? ", " : "") + std::to_string(t.shape()[d]);
  return s + "]";
}

namespace {

std::optional<std::vector<int64_t>> host_ints(const Tensor& t) {
  if (t.dtype() != DType::int64 || t.rank() > 1 || t.size() > 64) return std::nullopt;
  return t.to_vector<int64_t>();
}

std::string dims_text(const ValueInfo& v) {
  std::string s = std::string(dtype_name(v.dtype)) + "[";
  for (std::size_t i = 0; i < v.dims.size(); ++i)
    s += (i ? ", " : "") + (v.dims[i].param.empty() ? std::to_string(v.dims[i].value) : v.dims[i].param);
  return s + "]";
}

}  // namespace

const Tensor& OpContext::tensor(std::size_t i) const {
  if (i >= in.size() || !in[i]) fail("input " + std::to_string(i) + " is missing");
  return in[i]->t;
}

std::vector<int64_t> OpContext::ints(std::size_t i) const {
  const Tensor& t = tensor(i);
  if (in[i]->host) return *in[i]->host;
  if (t.dtype() != DType::int64 && t.dtype() != DType::int32) fail("input " + std::to_string(i) + " must hold integers");
  return cast(t, DType::int64).to_vector<int64_t>();
}

std::optional<int64_t> OpContext::attr_int(const std::string& name) const {
  for (const auto& a : node.attributes)
    if (a.name == name) return a.i;
  return std::nullopt;
}
int64_t OpContext::attr_int(const std::string& name, int64_t fallback) const { return attr_int(name).value_or(fallback); }
std::vector<int64_t> OpContext::attr_ints(const std::string& name) const {
  for (const auto& a : node.attributes)
    if (a.name == name) return a.ints;
  return {};
}
float OpContext::attr_float(const std::string& name, float fallback) const {
  for (const auto& a : node.attributes)
    if (a.name == name) return a.f;
  return fallback;
}
void OpContext::fail(const std::string& why) const {
  throw ValueError("'" + runner.file() + "': node '" + node.name + "' (" + node.op_type + "): " + why);
}

GraphRunner::GraphRunner(GraphProto graph, const std::map<std::string, Variable>& variables, std::string file)
    : g_(std::move(graph)), file_(std::move(file)), all_variables_(variables) {
  for (const auto& init : g_.initializers) {
    if (auto v = variables.find(init.name); v != variables.end()) {
      if (v->second.shape().dims() != init.dims || v->second.dtype() != init.dtype)
        throw ValueError("'" + file_ + "': initializer '" + init.name + "' has shape " + Shape(init.dims).to_string() +
                         " but the variable of that name has " + v->second.shape().to_string());
      variables_.emplace(init.name, v->second);
      continue;
    }
    Tensor t = tensor_from(init);
    constants_[init.name] = {t, host_ints(t)};
  }
  check_node_signatures(g_, file_);  // first: the rewrites assume well-formed nodes
  try {
    run_nhwc_in_place(g_);  // before check_ops, which keys Loop bodies by their nodes' addresses
  } catch (const std::logic_error& e) {
    throw IOError("'" + file_ + "': the graph is malformed: " + e.what());
  }
  check_ops(g_);
}

void GraphRunner::check_ops(const GraphProto& g) {
  const auto& ops = runner_ops();
  for (const auto& n : g.nodes) {
    if (n.op_type == "Loop") {
      const Attribute* body = nullptr;
      for (const auto& at : n.attributes)
        if (at.name == "body") body = &at;
      if (!body) throw ValueError("'" + file_ + "': Loop node '" + n.name + "' has no body");
      GraphProto& b = bodies_[&n] = decode_graph(body->tensor, file_);
      if (b.inputs.size() < 2 || b.outputs.size() + 1 != b.inputs.size() || n.inputs.size() != b.inputs.size() ||
          n.outputs.size() + 2 > b.inputs.size())
        throw IOError("'" + file_ + "': Loop node '" + n.name + "' has a body whose inputs and outputs do not match it");
      check_node_signatures(b, file_);
      check_ops(b);
      continue;
    }
    if (!ops.count(n.op_type))
      throw ValueError("'" + file_ + "': node '" + n.name + "' has op type '" + n.op_type +
                       "', which Kiln cannot run (it reads the ops its own ONNX export writes)");
  }
}

bool GraphRunner::accepts(const std::vector<Tensor>& inputs) const {
  if (inputs.size() != g_.inputs.size()) return false;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& decl = g_.inputs[i];
    if (inputs[i].dtype() != decl.dtype || inputs[i].rank() != static_cast<int64_t>(decl.dims.size())) return false;
    for (std::size_t d = 0; d < decl.dims.size(); ++d)
      if (decl.dims[d].param.empty() && decl.dims[d].value != inputs[i].shape()[static_cast<int64_t>(d)]) return false;
  }
  return true;
}

std::string GraphRunner::signature() const {
  std::string s = "(";
  for (std::size_t i = 0; i < g_.inputs.size(); ++i) s += (i ? ", " : "") + dims_text(g_.inputs[i]);
  return s + ")";
}

std::vector<Tensor> GraphRunner::run(const std::vector<Tensor>& inputs) const {
  if (!accepts(inputs)) {
    std::string got = "(";
    for (std::size_t i = 0; i < inputs.size(); ++i)
      got += (i ? ", " : "") + tensor_text(inputs[i]);
    throw ValueError("'" + file_ + "': the inputs " + got + ") do not match the saved signature " + signature());
  }
  Values values = constants_;
  for (std::size_t i = 0; i < inputs.size(); ++i) values[g_.inputs[i].name] = {inputs[i], std::nullopt};
  for (const auto& [name, v] : variables_) values[name] = {v.value(), std::nullopt};
  exec(g_, values);
  auto find = [&](const std::string& name) -> const RunValue* {
    auto it = values.find(name);
    return it == values.end() ? nullptr : &it->second;
  };
  std::vector<Tensor> out;
  for (const auto& o : g_.outputs) {
    const RunValue* v = find(o.name);
    if (!v) throw ValueError("'" + file_ + "': graph output '" + o.name + "' is not made by any node");
    out.push_back(v->t);
  }
  return out;
}

void GraphRunner::exec(const GraphProto& g, Values& values) const {
  const auto& ops = runner_ops();
  for (const auto& n : g.nodes) {
    OpContext c{n, {}, *this};
    for (const auto& name : n.inputs) {
      auto it = name.empty() ? values.end() : values.find(name);
      if (it == values.end() && !name.empty()) c.fail("its input '" + name + "' is not made by any earlier node");
      c.in.push_back(it == values.end() ? nullptr : &it->second);
    }
    std::vector<RunValue> outs;
    try {
      outs = n.op_type == "Loop" ? loop(n, c.in, values) : ops.at(n.op_type)(c);
    } catch (const Error& e) {
      rethrow_naming_node(e, n);
    } catch (const std::logic_error& e) {  // std::out_of_range from a shape that does not fit the op
      throw IOError("'" + file_ + "': node '" + n.name + "' (" + n.op_type + "): the graph is malformed: " + e.what());
    }
    for (std::size_t k = 0; k < outs.size() && k < n.outputs.size(); ++k) values[n.outputs[k]] = std::move(outs[k]);
  }
}

void GraphRunner::rethrow_naming_node(const Error& e, const NodeProto& n) const {
  const std::string what = e.what();
  const std::string prefix = "'" + file_ + "'";
  // Already named (OpContext::fail, an inner Loop node), or a trace's signal to its caller.
  if (what.compare(0, prefix.size(), prefix) == 0 || dynamic_cast<const TracingError*>(&e)) throw;
  const std::string msg = prefix + ": node '" + n.name + "' (" + n.op_type + "): " + what;
  if (dynamic_cast<const ShapeError*>(&e)) throw ShapeError(msg);
  if (dynamic_cast<const IndexError*>(&e)) throw IndexError(msg);
  if (dynamic_cast<const InvalidArgumentError*>(&e)) throw InvalidArgumentError(msg);
  if (dynamic_cast<const ValueError*>(&e)) throw ValueError(msg);
  if (dynamic_cast<const TypeError*>(&e)) throw TypeError(msg);
  if (dynamic_cast<const IOError*>(&e)) throw IOError(msg);
  throw;
}

std::vector<RunValue> GraphRunner::loop(const NodeProto& n, const std::vector<const RunValue*>& in,
                                        const Values& outer) const {
  const auto found = bodies_.find(&n);
  if (found == bodies_.end()) throw ValueError("'" + file_ + "': Loop node '" + n.name + "' has no decoded body");
  const GraphProto& body = found->second;
  const std::optional<int64_t> limit =
      in.at(0) ? std::optional<int64_t>(cast(in[0]->t, DType::int64).item<int64_t>()) : std::nullopt;
  bool go = !in.at(1) || cast(in[1]->t, DType::bool_).item<bool>();
  std::vector<RunValue> carried;
  for (std::size_t k = 2; k < in.size(); ++k) {
    if (!in[k]) throw ValueError("'" + file_ + "': Loop node '" + n.name + "' lacks loop-carried input " + std::to_string(k));
    carried.push_back(*in[k]);
  }
  for (int64_t i = 0; go && (!limit || i < *limit); ++i) {
    Values local = outer;
    for (const auto& init : body.initializers) {
      auto v = all_variables_.find(init.name);
      local[init.name] = v != all_variables_.end() && v->second.shape().dims() == init.dims ? RunValue{v->second.value(), std::nullopt} : RunValue{tensor_from(init), std::nullopt};
    }
    local[body.inputs[0].name] = {Tensor(i), std::vector<int64_t>{i}};
    local[body.inputs[1].name] = {Tensor(true), std::nullopt};
    for (std::size_t k = 0; k < carried.size(); ++k) local[body.inputs[k + 2].name] = carried[k];
    exec(body, local);
    auto get = [&](const std::string& name) -> const RunValue& {
      auto it = local.find(name);
      if (it == local.end()) throw ValueError("'" + file_ + "': Loop body output '" + name + "' is not made by any node");
      return it->second;
    };
    go = cast(get(body.outputs[0].name).t, DType::bool_).item<bool>();
    for (std::size_t k = 0; k < carried.size(); ++k) carried[k] = get(body.outputs[k + 1].name);
  }
  return carried;
}

}  // namespace kiln::io::onnx
