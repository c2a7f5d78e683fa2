// Keras's train_function, test_function and predict_function: train_step,
// test_step and predict_step (the built-in ones or a subclass's) traced as
// kiln::functions, once per batch signature, and replayed. A step that cannot
// be traced (it reads a tensor's value) runs eagerly from then on, after a
// warning that says why; what the failed trace changed is put back first.
#include <iostream>
#include <set>

#include "kiln/core/error.h"
#include "kiln/graph/function.h"
#include "kiln/training/model.h"

namespace kiln {

namespace graph {
/// A step's Logs: their tensor values are the traced function's outputs.
template <>
struct ResultTraits<Logs> {
  static std::vector<Tensor> flatten(const Logs& l) { return l.tensor_values(); }
  static Logs unflatten(std::vector<Tensor> v, const Logs& like) { return like.with_tensor_values(v); }
};
}  // namespace graph

namespace {

using Parts = std::vector<Tensor>;

Parts weights_of(const Batch& b) { return b.sample_weight.defined() ? Parts{b.sample_weight} : Parts{}; }

/// The part of a call's signature that decides whether it traces.
std::string signature_of(std::initializer_list<const Parts*> parts) {
  std::string s;
  for (const Parts* p : parts) {
    for (const auto& t : *p) s += t.shape().to_string() + dtype_name(t.dtype()) + t.device().to_string() + ";";
    s += "|";
  }
  return s;
}

/// Values of everything a step may change before its trace can fail, to put back if it does.
std::vector<std::pair<Variable, Tensor>> snapshot(Model& m) {
  std::vector<Variable> vars = m.weights();
  for (const auto& metric : m.metrics()) vars.insert(vars.end(), metric->variables().begin(), metric->variables().end());
  if (m.optimizer() && m.optimizer()->built())
    for (const auto& v : m.optimizer()->variables()) vars.push_back(v);
  std::vector<std::pair<Variable, Tensor>> out;
  for (const auto& v : vars) out.emplace_back(v, v.read_value_untracked().clone());
  return out;
}

/// One compiled step: its function, the signatures traced so far, and whether it fell back to eager.
template <class Fn>
struct Compiled {
  Fn fn;
  std::set<std::string> traced;
  bool failed = false;

  /// Runs `call` (which calls fn). When the call traces and the trace fails
  /// with a TracingError, puts the model back, warns, marks the step eager and returns false.
  template <class Call>
  bool run(Model& m, const char* step, const std::string& sig, Call&& call) {
    const bool tracing = !traced.count(sig);
    std::vector<std::pair<Variable, Tensor>> saved;
    if (tracing) saved = snapshot(m);
    try {
      call();
    } catch (const TracingError& e) {
      if (!tracing) throw;
      for (auto& [v, value] : saved) v.assign(value);
      failed = true;
      std::cerr << "WARNING: model '" << m.name() << "': its " << step << " cannot be traced, so it runs eagerly "
                << "(compile with jit_compile = false or run_eagerly = true to choose that and silence this). "
                << "Reason: " << e.what() << std::endl;
      return false;
    }
    traced.insert(sig);
    return true;
  }
};

using StepFn = std::function<Logs(const Parts&, const Parts&, const Parts&)>;

}  // namespace

struct Model::CompiledSteps {
  Compiled<StepFn> train, test;
  Compiled<std::function<Parts(const Parts&)>> predict;
};

bool Model::compiles_steps() const { return compile_options_.jit_compile && !compile_options_.run_eagerly; }

Model::CompiledSteps& Model::compiled_steps() {
  if (compiled_steps_) return *compiled_steps_;
  compiled_steps_ = std::make_shared<CompiledSteps>();
  compiled_steps_->train.fn = kiln::function([this](const Parts& x, const Parts& y, const Parts& sw) {
    return train_step(Batch{x, y, sw.empty() ? Tensor() : sw[0]});
  }, {.name = name() + ".train_function"});
  compiled_steps_->test.fn = kiln::function([this](const Parts& x, const Parts& y, const Parts& sw) {
    return test_step(Batch{x, y, sw.empty() ? Tensor() : sw[0]});
  }, {.name = name() + ".test_function"});
  compiled_steps_->predict.fn =
      kiln::function([this](const Parts& x) { return predict_step(x); }, {.name = name() + ".predict_function"});
  return *compiled_steps_;
}

Logs Model::train_function(const Batch& b) {
  if (!compiles_steps() || compiled_steps().train.failed) return train_step(b);
  auto& c = compiled_steps().train;
  const Parts sw = weights_of(b);
  Logs logs;
  if (c.run(*this, "train_step", signature_of({&b.x, &b.y, &sw}), [&] { logs = c.fn(b.x, b.y, sw); })) return logs;
  return train_step(b);
}

Logs Model::test_function(const Batch& b) {
  if (!compiles_steps() || compiled_steps().test.failed) return test_step(b);
  auto& c = compiled_steps().test;
  const Parts sw = weights_of(b);
  Logs logs;
  if (c.run(*this, "test_step", signature_of({&b.x, &b.y, &sw}), [&] { logs = c.fn(b.x, b.y, sw); })) return logs;
  return test_step(b);
}

std::vector<Tensor> Model::predict_function(const std::vector<Tensor>& x) {
  if (!compiles_steps() || compiled_steps().predict.failed) return predict_step(x);
  auto& c = compiled_steps().predict;
  Parts out;
  if (c.run(*this, "predict_step", signature_of({&x}), [&] { out = c.fn(x); })) return out;
  return predict_step(x);
}

}  // namespace kiln
