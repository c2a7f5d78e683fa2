// Activation functions by name, and with parameters, on chosen points.
#include "kiln/autodiff/gradient_tape.h"
#include "kiln/nn/activations.h"
#include "kiln/ops/ops.h"
#include "oracle_io.h"

namespace oracle {

namespace {

namespace A = kiln::activations;

// The parameterized forms: Keras 3's keyword names, each with Keras's default.
kiln::Tensor apply(const std::string& name, const json& p, const kiln::Tensor& x) {
  auto num = [&](const char* key, double dflt) { return p.contains(key) ? p.at(key).get<double>() : dflt; };
  if (p.empty()) return A::get(name)(x);
  if (name == "celu") return A::celu(x, num("alpha", 1.0));
  if (name == "elu") return A::elu(x, num("alpha", 1.0));
  if (name == "leaky_relu") return A::leaky_relu(x, num("negative_slope", 0.2));
  if (name == "gelu") return A::gelu(x, p.value("approximate", false));
  if (name == "hard_shrink") return A::hard_shrink(x, num("threshold", 0.5));
  if (name == "soft_shrink") return A::soft_shrink(x, num("threshold", 0.5));
  if (name == "squareplus") return A::squareplus(x, num("b", 4.0));
  if (name == "threshold") return A::threshold(x, p.at("threshold").get<double>(), p.at("default_value").get<double>());
  if (name == "softmax") return A::softmax(x, p.at("axis").get<int>());
  if (name == "log_softmax") return A::log_softmax(x, p.at("axis").get<int>());
  if (name == "glu") return A::glu(x, p.at("axis").get<int>());
  throw std::runtime_error("no parameterized form of activation '" + name + "' in kiln_oracle");
}

}  // namespace

// {"name", "params": {keyword: value} (empty: the activation by name), "x": npy,
//  "cotangent": npy}. Writes out and grad_x (d sum(out * cotangent) / dx).
int run_activations(const Group& g) {
  g.for_each_case([&](const json& c) {
    const kiln::Tensor x = g.array(c.at("x"));
    kiln::GradientTape tape;
    tape.watch(x);
    const kiln::Tensor out = apply(c.at("name").get<std::string>(), c.at("params"), x);
    g.save(c, "out", out);
    const kiln::Tensor target = kiln::sum(out * g.array(c.at("cotangent")));
    std::optional<kiln::Tensor> gx = tape.gradient(target, x);
    g.save(c, "grad_x", gx ? *gx : kiln::zeros(x.shape()));
  });
  return 0;
}

}  // namespace oracle
