// Keras's train_function, test_function and predict_function: train_step,
// test_step and predict_step (the built-in ones or a subclass's) traced as
// kiln::functions, once per batch signature, and replayed. A step that cannot
// be traced (it reads a tensor's value) runs eagerly from then on, after a
// warning that says why. A trace records without computing, so a failed one has
// changed no variable.
#include <iostream>

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

// Model::CompiledSteps holds these, so they have a namespace of their own
// rather than an anonymous one (a member of a class with external linkage).
namespace compiled_steps {

using Parts = std::vector<Tensor>;

/// One compiled step: its function, and whether it fell back to eager.
template <class Fn>
struct Compiled {
  Fn fn;
  bool failed = false;
  bool tracing = false;  // set by the function's before_trace

  /// `traced()` through fn; `eager()` once a trace has failed with a TracingError,
  /// after warning once. A trace records without computing, so a failed one
  /// changed no variable and there is nothing to put back.
  template <class Traced, class Eager>
  auto call(Model& m, const char* step, Traced&& traced, Eager&& eager) -> decltype(eager()) {
    if (failed) return eager();
    tracing = false;
    try {
      return traced();
    } catch (const TracingError& e) {
      if (!tracing) throw;  // a replay does not run the body, so this cannot be a trace's value read
      failed = true;
      std::cerr << "WARNING: model '" << m.name() << "': its " << step << " cannot be traced, so it runs eagerly "
                << "(compile with jit_compile = false or run_eagerly = true to choose that and silence this). "
                << "Reason: " << e.what() << std::endl;
      return eager();
    }
  }
};

using StepFn = std::function<Logs(const Parts&, const Parts&, const Parts&)>;
/// steps_per_execution steps: every batch's parts one after the other, and their count.
using MultiStepFn = std::function<Logs(const Parts&, const Parts&, const Parts&, int)>;

}  // namespace compiled_steps

namespace {

using compiled_steps::Compiled;
using compiled_steps::MultiStepFn;
using compiled_steps::Parts;
using compiled_steps::StepFn;

Parts weights_of(const Batch& b) { return b.sample_weight.defined() ? Parts{b.sample_weight} : Parts{}; }

/// The batches' parts end to end, for one call of a multi-step function;
/// false when some batches have sample weights and others not.
bool flatten(const std::vector<Batch>& batches, Parts& x, Parts& y, Parts& sw) {
  const bool weighted = batches.front().sample_weight.defined();
  for (const auto& b : batches) {
    if (b.sample_weight.defined() != weighted || b.x.size() != batches.front().x.size() ||
        b.y.size() != batches.front().y.size())
      return false;
    x.insert(x.end(), b.x.begin(), b.x.end());
    y.insert(y.end(), b.y.begin(), b.y.end());
    if (weighted) sw.push_back(b.sample_weight);
  }
  return true;
}

/// Batch i of k from flattened parts.
Batch batch_of(const Parts& x, const Parts& y, const Parts& sw, int i, int k) {
  auto part = [i, k](const Parts& all) {
    const std::size_t n = all.size() / static_cast<std::size_t>(k);
    return Parts(all.begin() + static_cast<long>(n * i), all.begin() + static_cast<long>(n * (i + 1)));
  };
  return Batch{part(x), part(y), sw.empty() ? Tensor() : sw[static_cast<std::size_t>(i)]};
}

}  // namespace

/// The body of a multi-step function: `step` on each of the k batches, the last logs.
MultiStepFn steps_of(Model* m, Logs (Model::*step)(const Batch&)) {
  return [m, step](const Parts& x, const Parts& y, const Parts& sw, int k) {
    Logs logs;
    for (int i = 0; i < k; ++i) logs = (m->*step)(batch_of(x, y, sw, i, k));
    return logs;
  };
}

struct Model::CompiledSteps {
  Compiled<StepFn> train, test;
  Compiled<MultiStepFn> train_multi, test_multi;
  Compiled<std::function<Parts(const Parts&)>> predict;
};

bool Model::compiles_steps() const { return compile_options_.jit_compile && !compile_options_.run_eagerly; }

Model::CompiledSteps& Model::compiled_steps() {
  if (compiled_steps_) return *compiled_steps_;
  compiled_steps_ = std::make_shared<CompiledSteps>();
  CompiledSteps& c = *compiled_steps_;
  // As Keras's fit and evaluate build the optimizer on the trainable variables
  // before their first compiled step, so that its slots are made outside the
  // trace. Keras's predict does not, and neither does predict_function here.
  auto options = [this](const char* fn, bool& tracing, bool builds_optimizer) {
    return FunctionOptions{.name = name() + "." + fn, .before_trace = [this, &tracing, builds_optimizer] {
                             tracing = true;
                             const OptimizerPtr& opt = optimizer();
                             if (!builds_optimizer || !opt || opt->built()) return;
                             auto vars = trainable_variables();
                             if (!vars.empty()) opt->build(vars);
                           }};
  };
  c.train.fn = kiln::function([this](const Parts& x, const Parts& y, const Parts& sw) {
    return train_step(Batch{x, y, sw.empty() ? Tensor() : sw[0]});
  }, options("train_function", c.train.tracing, true));
  c.test.fn = kiln::function([this](const Parts& x, const Parts& y, const Parts& sw) {
    return test_step(Batch{x, y, sw.empty() ? Tensor() : sw[0]});
  }, options("test_function", c.test.tracing, true));
  c.train_multi.fn = kiln::function(steps_of(this, &Model::train_step),
                                    options("train_function", c.train_multi.tracing, true));
  c.test_multi.fn = kiln::function(steps_of(this, &Model::test_step),
                                   options("test_function", c.test_multi.tracing, true));
  c.predict.fn = kiln::function([this](const Parts& x) { return predict_step(x); },
                                options("predict_function", c.predict.tracing, false));
  return c;
}

Logs Model::train_function(const Batch& b) {
  if (!compiles_steps()) return train_step(b);
  auto& c = compiled_steps().train;
  return c.call(*this, "train_step", [&] { return c.fn(b.x, b.y, weights_of(b)); }, [&] { return train_step(b); });
}

Logs Model::test_function(const Batch& b) {
  if (!compiles_steps()) return test_step(b);
  auto& c = compiled_steps().test;
  return c.call(*this, "test_step", [&] { return c.fn(b.x, b.y, weights_of(b)); }, [&] { return test_step(b); });
}

namespace {
/// Several batches as one call of `c` (one replay when compiled, `c` non-null);
/// else, or when the batches cannot be one call, `single` on each in turn.
template <class Single>
Logs run_batches(Model& m, Compiled<MultiStepFn>* c, const char* name, Logs (Model::*step)(const Batch&),
                 const std::vector<Batch>& batches, Single&& single) {
  auto each = [&](auto&& one) {
    Logs logs;
    for (const auto& b : batches) logs = one(b);
    return logs;
  };
  if (batches.size() == 1) return single(batches.front());
  Parts x, y, sw;
  if (batches.empty() || !c || !flatten(batches, x, y, sw)) return each(single);
  const int k = static_cast<int>(batches.size());
  return c->call(m, name, [&] { return c->fn(x, y, sw, k); },
                 [&] { return each([&](const Batch& b) { return (m.*step)(b); }); });
}
}  // namespace

Logs Model::train_function(const std::vector<Batch>& batches) {
  return run_batches(*this, compiles_steps() ? &compiled_steps().train_multi : nullptr, "train_step",
                     &Model::train_step, batches, [this](const Batch& b) { return train_function(b); });
}

Logs Model::test_function(const std::vector<Batch>& batches) {
  return run_batches(*this, compiles_steps() ? &compiled_steps().test_multi : nullptr, "test_step",
                     &Model::test_step, batches, [this](const Batch& b) { return test_function(b); });
}

std::vector<Tensor> Model::predict_function(const std::vector<Tensor>& x) {
  if (!compiles_steps()) return predict_step(x);
  auto& c = compiled_steps().predict;
  return c.call(*this, "predict_step", [&] { return c.fn(x); }, [&] { return predict_step(x); });
}

}  // namespace kiln
