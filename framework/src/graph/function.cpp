// kiln::function's traces: recorded on the first call for a signature, replayed after.
#include "kiln/graph/function.h"

#include <atomic>
#include <iostream>
#include <optional>
#include <set>

#include "autodiff/autodiff.h"
#include "backend/recording.h"
#include "core/tensor_impl.h"
#include "core/tracing.h"
#include "graph/describe.h"
#include "graph/function_trace.h"
#include "graph/function_gradient.h"
#include "graph/passes.h"
#include "kiln/core/error.h"

namespace kiln {

std::string TensorSpec::to_string() const {
  std::string s = "TensorSpec(shape=" + shape.to_string() + ", dtype=" + dtype_name(dtype) + ", name=";
  return s + (name.empty() ? "None" : "'" + name + "'") + ")";
}

namespace config {
namespace {
std::atomic<bool> g_run_eagerly{false};
}
void run_functions_eagerly(bool run_eagerly) { g_run_eagerly = run_eagerly; }
bool functions_run_eagerly() { return g_run_eagerly; }
}  // namespace config

bool executing_eagerly() { return tracing::current_function() == nullptr; }

namespace graph {

void tensor_key(const Shape& shape, DType dtype, Device device, std::string& key, bool with_dims) {
  key += 'T';
  key += std::to_string(static_cast<int>(dtype));
  if (with_dims)
    for (int64_t d : shape.dims()) key += ',' + std::to_string(d);
  else
    key += 'r' + std::to_string(shape.rank());
  key += device.is_cpu() ? "@c" : "@g" + std::to_string(device.index);
  key += ';';
}

void ArgTraits<Tensor>::key(const Tensor& t, std::string& key) {
  if (!t.defined()) throw ValueError("kiln::function: an argument is an undefined tensor");
  // Read without Tensor::shape(): a call inside a shape-polymorphic trace keys
  // its arguments too, and that is not a read the trace depends on.
  tensor_key(t.impl()->shape, t.dtype(), t.device(), key);
}
void ArgTraits<Tensor>::describe(const Tensor& t, std::vector<std::string>& described) {
  described.push_back(TensorSpec{t.shape(), t.dtype(), ""}.to_string());
}

namespace {
/// A spec's shape with its unknown sizes at 1: the placeholder a polymorphic trace can be made with.
Shape sized(const TensorSpec& s) {
  Shape out = s.shape;
  for (int64_t d = 0; d < out.rank(); ++d)
    if (out[d] < 0) out[d] = 1;
  return out;
}
}  // namespace

// Keyed as a tensor of that shape and dtype on the default device, so a
// later call with such a tensor replays this trace.
void ArgTraits<TensorSpec>::key(const TensorSpec& s, std::string& key) {
  tensor_key(sized(s), s.dtype, default_device(), key);
}
void ArgTraits<TensorSpec>::describe(const TensorSpec& s, std::vector<std::string>& described) {
  described.push_back(s.to_string());
}

// Unknown sizes are allowed where the input_signature has them (checked by concrete_function).
void ArgTraits<TensorSpec>::collect(const TensorSpec& s, std::vector<Tensor>& out) {
  out.push_back(zeros(sized(s), s.dtype).to(default_device()));
}

void ArgTraits<std::vector<Tensor>>::key(const std::vector<Tensor>& v, std::string& key) {
  key += "[";
  for (const auto& t : v) ArgTraits<Tensor>::key(t, key);
  key += "];";
}
void ArgTraits<std::vector<Tensor>>::describe(const std::vector<Tensor>& v, std::vector<std::string>& described) {
  std::string list;
  for (const auto& t : v) list += (list.empty() ? "" : ", ") + TensorSpec{t.shape(), t.dtype(), ""}.to_string();
  described.push_back("List[" + list + "]");
}

// A variable argument is captured by reference: its identity is the signature.
void ArgTraits<Variable>::key(const Variable& v, std::string& key) { key += "V" + std::to_string(v.id()) + ";"; }
void ArgTraits<Variable>::describe(const Variable& v, std::vector<std::string>& described) {
  described.push_back("Variable('" + v.name() + "', shape=" + v.shape().to_string() + ", dtype=" +
                      dtype_name(v.dtype()) + ")");
}

std::vector<Tensor> ResultTraits<std::map<std::string, Tensor>>::flatten(const std::map<std::string, Tensor>& m) {
  std::vector<Tensor> out;
  for (const auto& [k, t] : m) out.push_back(t);
  return out;
}
std::map<std::string, Tensor> ResultTraits<std::map<std::string, Tensor>>::unflatten(
    std::vector<Tensor> v, const std::map<std::string, Tensor>& like) {
  std::map<std::string, Tensor> out;
  std::size_t i = 0;
  for (const auto& [k, t] : like) out.emplace(k, v.at(i++));
  return out;
}

namespace {

/// TensorFlow warns when a function keeps retracing; so does Kiln, once, at
/// the fifth trace, naming the arguments whose signatures changed.
constexpr int kRetraceWarning = 5;

std::vector<Tensor> clone_all(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const auto& t : ts) out.push_back(t.defined() ? t.clone() : t);
  return out;
}

}  // namespace

FunctionCore::FunctionCore(FunctionOptions options) : s_(std::make_unique<State>()) {
  s_->options = std::move(options);
}
FunctionCore::~FunctionCore() = default;

int FunctionCore::tracing_count() const { return s_->tracing_count; }
const FunctionOptions& FunctionCore::options() const { return s_->options; }

namespace {

void check_signature(const FunctionOptions& o, const std::vector<Tensor>& args) {
  const auto& sig = o.input_signature;
  if (sig.empty()) return;
  auto fail = [&](const std::string& why) {
    std::string got;
    for (const auto& a : args) got += (got.empty() ? "" : ", ") + TensorSpec{a.shape(), a.dtype(), ""}.to_string();
    std::string want;
    for (const auto& sp : sig) want += (want.empty() ? "" : ", ") + sp.to_string();
    throw ValueError("kiln::function '" + o.name + "': inputs incompatible with input_signature (" + why +
                     "):\n  inputs: (" + got + ")\n  input_signature: (" + want + ")");
  };
  if (args.size() != sig.size())
    fail("expected " + std::to_string(sig.size()) + " tensors, received " + std::to_string(args.size()));
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Shape& want = sig[i].shape;
    const Shape& got = args[i].shape();
    bool ok = want.rank() == got.rank() && sig[i].dtype == args[i].dtype();
    for (int64_t d = 0; ok && d < want.rank(); ++d) ok = want[d] < 0 || want[d] == got[d];
    if (!ok) fail("argument " + std::to_string(i + 1) + " does not match");
  }
}

/// `traces` lists each trace's argument descriptions.
void warn_retracing(const std::string& name, const std::vector<const std::vector<std::string>*>& traces) {
  std::set<std::size_t> changing;
  for (const auto* t : traces)
    for (std::size_t i = 0; i < t->size(); ++i)
      if (i >= traces.front()->size() || (*t)[i] != (*traces.front())[i]) changing.insert(i);
  std::string which;
  for (std::size_t i : changing) {
    which += (which.empty() ? "" : "; ") + std::string("argument ") + std::to_string(i + 1) + " was";
    for (const auto* t : traces) which += " " + (i < t->size() ? (*t)[i] : "(absent)");
  }
  std::cerr << "WARNING: " << traces.size() << " calls to kiln::function '" << name
            << "' triggered retracing (" << which
            << "). Tracing is expensive: pass tensors rather than C++ numbers for values that change, keep "
               "tensor shapes fixed or give an input_signature, and create the function once, outside loops."
            << std::endl;
}

}  // namespace

namespace {
struct Collected {
  std::vector<ConcreteFunction> graphs;
  std::set<const void*> traces;  // each trace once
};
thread_local std::unique_ptr<Collected> t_collected;
}  // namespace

void start_collecting() { t_collected = std::make_unique<Collected>(); }

std::vector<ConcreteFunction> stop_collecting() {
  std::vector<ConcreteFunction> out;
  if (t_collected) out = std::move(t_collected->graphs);
  t_collected.reset();
  return out;
}

/// A replay's arguments in its placeholders: each placeholder's buffer is
/// pointed at its argument's for the call, unless the graph writes the
/// placeholder or might write the argument (a variable's buffer), or the
/// replay is captured (a graph keeps the addresses it was captured with), in
/// which case the argument is copied in. Restored on destruction.
class FunctionCore::Arguments {
 public:
  Arguments(Trace& t, const std::vector<Tensor>& args) {
    const bool captured = t.captured.captures(t.plan);
    for (std::size_t i = 0; i < args.size(); ++i) {
      const auto& ph = t.placeholders[i].impl()->storage;
      const auto& arg = args[i].impl()->storage;
      const bool fixed = captured && !args[i].device().is_cpu();
      if (!fixed && t.bindable[i] && !t.plan.may_write(arg.get())) {
        bound_.emplace_back(ph, ph->data);
        ph->data = arg->data;
      } else {
        backend::backend_for(args[i].device()).copy_from(args[i], t.placeholders[i]);
      }
    }
  }
  ~Arguments() {
    for (auto& [storage, own] : bound_) storage->data = own;
  }
  Arguments(const Arguments&) = delete;
  Arguments& operator=(const Arguments&) = delete;

 private:
  std::vector<std::pair<std::shared_ptr<Storage>, void*>> bound_;
};

std::vector<Tensor> FunctionCore::call(const std::vector<Tensor>& args, const std::string& key,
                                       const Describe& described, const Body& body, const std::string** body_key) {
  if (body_key) *body_key = &key;
  if (config::functions_run_eagerly() || tracing::current_function()) return body(args);
  check_signature(s_->options, args);
  if (autodiff::active()) {
    if (auto out = differentiable_call(*s_->under_tape, s_->options, s_->tracing_count, args, key, body)) return *out;
    return body(args);
  }
  auto it = s_->traces.find(key);
  Trace* t = it != s_->traces.end() ? it->second.get() : nullptr;
  auto collect = [&] {
    if (t_collected && t_collected->traces.insert(t).second) t_collected->graphs.push_back(describe(*t));
  };
  if (!t && has_unknown_dims(s_->options.input_signature)) {
    auto base = s_->polymorphic.find(shape_free_key(key, args));
    if (base != s_->polymorphic.end()) t = specialize(*base->second, args, key);
  }
  if (!t) {
    // The trace only records; the call then replays it like any later one. An
    // executing trace would keep every value it computed until the plan below
    // gives them shared memory: for a ResNet's training step at batch 128 that
    // is 2.0 GB at once, where the plan needs 0.7 GB.
    if (s_->options.before_trace) s_->options.before_trace();
    t = &trace(args, key, described, body);
  }
  if (t->polymorphic) activate(*t);
  if (body_key) *body_key = &t->body_key;
  Arguments bound(*t, args);
  const auto& observe = s_->options.replay_observer;
  if (observe) observe(true);
  t->captured.replay(t->plan);
  if (observe) observe(false);
  collect();
  return clone_all(t->outputs);
}


void plan_trace(FunctionCore::Trace& t, bool optimize_graph) {
  t.plan = optimize_graph ? optimize(t.recording, t.outputs, t.placeholders, false) : t.recording;
  t.plan.seal();
  t.bindable.clear();
  for (const auto& p : t.placeholders) t.bindable.push_back(!t.plan.may_write(p.impl()->storage.get()));
}

ConcreteFunction FunctionCore::describe(const Trace& t) const {
  std::vector<std::string> signature;
  for (std::size_t i = 0; i < t.described.size(); ++i)
    signature.push_back("args_" + std::to_string(i) + ": " + t.described[i]);
  return graph::describe(s_->options.name, signature, t.placeholders, t.recording, t.plan, t.outputs);
}

ConcreteFunction FunctionCore::concrete_function(const std::vector<Tensor>& args, const std::string& key,
                                                 const Describe& described, const Body& body) {
  check_signature(s_->options, args);
  const bool polymorphic = has_unknown_dims(s_->options.input_signature);
  auto unknown_size = [](const std::string& d) {  // "TensorSpec(shape=(None, 3), dtype=..."
    const std::size_t at = d.find("shape=("), end = d.find(')', at);
    return at != std::string::npos && d.substr(at, end - at).find("None") != std::string::npos;
  };
  for (const auto& d : described())
    if (!polymorphic && unknown_size(d))
      throw ValueError("kiln::function '" + s_->options.name + "': get_concrete_function needs a fully defined "
                       "shape, received " + d + "; give the function an input_signature with -1 for a "
                       "shape-polymorphic trace");
  auto it = s_->traces.find(key);
  if (it != s_->traces.end()) return describe(*it->second);
  if (polymorphic) {
    auto base = s_->polymorphic.find(shape_free_key(key, args));
    if (base != s_->polymorphic.end()) return describe(*base->second);
  }
  return describe(trace(args, key, described, body));
}

FunctionCore::Trace& FunctionCore::trace(const std::vector<Tensor>& args, const std::string& key,
                                         const Describe& described, const Body& body) {
  auto trace = std::make_unique<Trace>();
  trace->described = described();
  trace->body_key = key;
  trace->placeholders = clone_all(args);
  const bool first = s_->tracing_count == 0;
  ++s_->tracing_count;
  // The first trace of a signature with unknown dimensions logs its op calls,
  // so that other shapes can be served without running the body again.
  const std::string shape_free = has_unknown_dims(s_->options.input_signature) ? shape_free_key(key, args) : "";
  const bool polymorphic = !shape_free.empty() && !s_->polymorphic.count(shape_free);
  oplog::Log log;
  {
    backend::RecordingScope recording(trace->recording, false);
    tracing::Scope scope(&s_->options.name, first);
    std::optional<oplog::Scope> logging;
    if (polymorphic) logging.emplace(log);
    trace->outputs = body(trace->placeholders);
  }
  plan_trace(*trace, s_->options.optimize);
  if (polymorphic) start_polymorphic(*trace, std::move(log), shape_free);
  Trace& t = *trace;
  s_->order.push_back(trace.get());
  s_->traces.emplace(key, std::move(trace));
  if (s_->tracing_count == kRetraceWarning) {
    std::vector<const std::vector<std::string>*> all;
    for (const Trace* tr : s_->order) all.push_back(&tr->described);
    warn_retracing(s_->options.name, all);
  }
  return t;
}

std::string FunctionCore::pretty_printed_concrete_signatures() const {
  std::string out;
  for (const Trace* t : s_->order) {
    if (!out.empty()) out += "\n";
    out += "Input Parameters:\n";
    for (std::size_t i = 0; i < t->described.size(); ++i)
      out += "  arg" + std::to_string(i + 1) + ": " + t->described[i] + "\n";
    out += "Output Type:\n";
    for (const auto& o : t->outputs) out += "  " + TensorSpec{o.shape(), o.dtype(), ""}.to_string() + "\n";
    if (t->outputs.empty()) out += "  None\n";
  }
  return out;
}

std::vector<std::vector<TensorSpec>> FunctionCore::traced_signatures() const {
  std::vector<std::vector<TensorSpec>> out;
  for (const Trace* t : s_->order) {
    bool tensors = true;  // not a number, list or variable argument
    for (const auto& d : t->described) tensors = tensors && d.rfind("TensorSpec(", 0) == 0;
    if (!tensors) continue;
    std::vector<TensorSpec> specs;
    if (t->polymorphic) specs = s_->options.input_signature;
    else
      for (const auto& p : t->placeholders) specs.push_back(TensorSpec(p.shape(), p.dtype()));
    out.push_back(std::move(specs));
  }
  return out;
}

}  // namespace graph
}  // namespace kiln
