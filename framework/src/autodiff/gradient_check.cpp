#include "kiln/autodiff/gradient_check.h"

#include <cmath>
#include <sstream>

#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln {
namespace {

/// Projects a (possibly non-scalar) output to a scalar with fixed random weights,
/// so one backward pass checks a random combination of every output's gradient.
double project(const Tensor& y, const Tensor& r) { return sum(multiply(cast(y, DType::float64), r)).item<double>(); }

void compare(const std::vector<double>& analytic, const std::vector<double>& numeric, const std::string& what,
             const GradientCheckOptions& o, GradientCheckResult& res) {
  for (std::size_t i = 0; i < numeric.size(); ++i) {
    double err = std::abs(analytic[i] - numeric[i]);
    double rel = err / std::max(std::abs(numeric[i]), 1e-12);
    if (err > res.max_abs_error) res.max_abs_error = err;
    if (err > o.atol && rel > res.max_rel_error) res.max_rel_error = rel;
    if (err > o.atol + o.rtol * std::abs(numeric[i]) && res.ok) {
      res.ok = false;
      std::ostringstream s;
      s << what << " element " << i << ": analytic " << analytic[i] << " vs numeric " << numeric[i];
      res.report = s.str();
    }
  }
}

}  // namespace

GradientCheckResult check_gradients(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                                    const std::vector<Tensor>& inputs_in, GradientCheckOptions o) {
  std::vector<Tensor> inputs;
  for (const auto& t : inputs_in) inputs.push_back(is_floating(t.dtype()) ? cast(t, DType::float64).clone() : t);
  Tensor y0 = f(inputs);
  Tensor r = random::normal(y0.shape(), 0, 1, DType::float64, o.seed).to(y0.device());

  // Only floating inputs are sources: integer ones (indices, labels) have no
  // gradient, and asking for one would print the tape's dtype warning.
  std::vector<Source> sources;
  std::vector<std::size_t> source_of(inputs.size(), 0);
  for (std::size_t k = 0; k < inputs.size(); ++k)
    if (is_floating(inputs[k].dtype())) {
      source_of[k] = sources.size();
      sources.emplace_back(inputs[k]);
    }
  std::vector<std::optional<Tensor>> source_grads;
  {
    GradientTape tape;
    for (const auto& t : inputs)
      if (is_floating(t.dtype())) tape.watch(t);
    Tensor y = f(inputs);
    Tensor target = sum(multiply(cast(y, DType::float64), r));
    source_grads = tape.gradient(target, sources, UnconnectedGradients::Zero);
  }
  std::vector<std::optional<Tensor>> grads(inputs.size());
  for (std::size_t k = 0; k < inputs.size(); ++k)
    if (is_floating(inputs[k].dtype())) grads[k] = source_grads[source_of[k]];
  GradientCheckResult res;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (!is_floating(inputs[k].dtype())) continue;
    // Perturb a host copy; inputs on another device get the copy uploaded per evaluation.
    const Tensor original = inputs[k];
    const Device dev = original.device();
    Tensor host = original.to(Device::cpu()).clone();
    double* p = host.data<double>();
    auto eval = [&]() {
      inputs[k] = dev.is_cpu() ? host : host.to(dev);
      return project(f(inputs), r);
    };
    std::vector<double> numeric(static_cast<std::size_t>(host.size()));
    for (int64_t i = 0; i < host.size(); ++i) {
      const double orig = p[i];
      p[i] = orig + o.epsilon;
      double fp = eval();
      p[i] = orig - o.epsilon;
      double fm = eval();
      p[i] = orig;
      numeric[i] = (fp - fm) / (2 * o.epsilon);
    }
    inputs[k] = original;
    std::vector<double> analytic = grads[k] ? cast(*grads[k], DType::float64).to_vector<double>()
                                            : std::vector<double>(numeric.size(), 0.0);
    compare(analytic, numeric, "input " + std::to_string(k), o, res);
  }
  return res;
}

GradientCheckResult check_gradients(const std::function<Tensor()>& f, const std::vector<Variable>& vars,
                                    GradientCheckOptions o) {
  Tensor y0 = f();
  Tensor r = random::normal(y0.shape(), 0, 1, DType::float64, o.seed).to(y0.device());
  std::vector<std::optional<Tensor>> grads;
  {
    GradientTape tape;
    tape.watch(vars);
    Tensor target = sum(multiply(cast(f(), DType::float64), r));
    grads = tape.gradient(target, vars, UnconnectedGradients::Zero);
  }
  GradientCheckResult res;
  for (std::size_t k = 0; k < vars.size(); ++k) {
    Variable v = vars[k];
    Tensor orig = v.read_value_untracked().clone();
    std::vector<double> base = orig.to_vector<double>();
    std::vector<double> numeric(base.size());
    for (std::size_t i = 0; i < base.size(); ++i) {
      auto perturbed = [&](double delta) {
        std::vector<double> b = base;
        b[i] += delta;
        v.assign(cast(Tensor(b, orig.shape()), orig.dtype()).to(v.device()));
        return project(f(), r);
      };
      double fp = perturbed(o.epsilon), fm = perturbed(-o.epsilon);
      numeric[i] = (fp - fm) / (2 * o.epsilon);
    }
    v.assign(orig);
    std::vector<double> analytic = grads[k] ? cast(*grads[k], DType::float64).to_vector<double>()
                                            : std::vector<double>(numeric.size(), 0.0);
    compare(analytic, numeric, "variable '" + v.path() + "'", o, res);
  }
  return res;
}

}  // namespace kiln
