// The fused normalization kernel behind LayerNormalization, GroupNormalization
// (channels last) and RMSNormalization, against the same maths composed from
// kiln ops: outputs and first gradients (input, gamma, beta), a second-order
// gradient (the composed backward under an outer tape), and a traced function's
// replay at two batch sizes.
#include <doctest/doctest.h>
#include <kiln/kiln.h>
#include <kiln/ops/keras_nn_ops.h>

#include <functional>
#include <string>
#include <vector>

namespace test_normalization_kernels {

namespace k = kiln;
namespace L = kiln::layers;

namespace {

void check_close(const k::Tensor& got, const k::Tensor& want, double tol, const std::string& what) {
  INFO(what);
  REQUIRE(got.shape() == want.shape());
  const auto g = got.to_vector<double>(), w = want.to_vector<double>();
  double worst = 0;
  for (std::size_t i = 0; i < g.size(); ++i) worst = std::max(worst, std::abs(g[i] - w[i]) / (1.0 + std::abs(w[i])));
  CHECK(worst < tol);
}

// GroupNormalization's maths from ops: (b, ..., groups, C / groups), moments over all but b and the group.
k::Tensor composed_group_norm(const k::Tensor& x, const k::Tensor& gamma, const k::Tensor& beta, int64_t groups,
                              double eps) {
  const k::Shape& s = x.shape();
  const k::Shape view{s[0], x.size() / (s[0] * s[-1]), groups, s[-1] / groups};
  const k::Tensor v = k::reshape(x, view);
  const k::Tensor c = v - k::mean(v, {1, 3}, true);
  const k::Tensor y = k::reshape(c * k::rsqrt(k::mean(k::square(c), {1, 3}, true) + eps), s);
  return y * gamma + beta;
}

// Gives the layer's trainable weights these values, in order (gamma, beta).
void set_weights(k::Layer& layer, const std::vector<k::Tensor>& values) {
  auto vars = layer.trainable_variables();
  REQUIRE(vars.size() == values.size());
  for (std::size_t i = 0; i < vars.size(); ++i) vars[i].assign(values[i]);
}

// A layer call and its reference: the output, and the gradients of sum(y · w) for x and every weight.
void compare(const std::string& what, k::Layer& layer, const k::Tensor& x,
             const std::function<k::Tensor(const k::Tensor&, const std::vector<k::Tensor>&)>& reference, double tol) {
  const k::Tensor probe = k::random::normal(x.shape(), 0.0, 1.0, x.dtype(), 11);
  layer(x);  // builds
  const auto weights = layer.trainable_variables();
  std::vector<k::Tensor> w_values;
  for (const auto& v : weights) w_values.push_back(v.value());
  k::Tensor fused_y, ref_y;
  std::vector<std::optional<k::Tensor>> fused_g, ref_g;
  {
    k::GradientTape tape;
    tape.watch(x);
    fused_y = layer(x);
    std::vector<k::Source> sources{x};
    for (const auto& v : weights) sources.push_back(v);
    fused_g = tape.gradient(k::sum(fused_y * probe), sources);
  }
  {
    k::GradientTape tape;
    tape.watch(x);
    for (const auto& w : w_values) tape.watch(w);
    ref_y = reference(x, w_values);
    std::vector<k::Source> sources{x};
    for (const auto& w : w_values) sources.push_back(w);
    ref_g = tape.gradient(k::sum(ref_y * probe), sources);
  }
  check_close(fused_y, ref_y, tol, what + ": output");
  REQUIRE(fused_g.size() == ref_g.size());
  for (std::size_t i = 0; i < fused_g.size(); ++i) {
    REQUIRE(fused_g[i].has_value());
    REQUIRE(ref_g[i].has_value());
    check_close(*fused_g[i], *ref_g[i], tol, what + ": gradient " + std::to_string(i));
  }
}

}  // namespace

TEST_CASE("fused normalization: layer, group and RMS normalization equal their composed maths, with gradients") {
  k::random::set_seed(5);
  const double tol = 2e-5;
  {
    L::LayerNormalization ln({.axis = std::vector<int>{-2, -1}, .epsilon = 1e-3});
    const k::Tensor x = k::random::normal({4, 5, 6}, 1.0, 3.0, k::float32, 1);
    ln(x);
    set_weights(*ln.get(), {k::random::normal({5, 6}, 1.0, 0.5, k::float32, 2),
                            k::random::normal({5, 6}, 0.0, 0.5, k::float32, 3)});
    compare("LayerNormalization over two axes", *ln.get(), x,
            [](const k::Tensor& in, const std::vector<k::Tensor>& w) {
              return k::layer_normalization(in, w[0], w[1], {-2, -1}, 1e-3);
            },
            tol);
  }
  {
    L::LayerNormalization bare({.epsilon = 1e-5, .center = false, .scale = false});
    compare("LayerNormalization without gamma and beta", *bare.get(), k::random::normal({7, 33}, 0.0, 1.0, k::float32, 4),
            [](const k::Tensor& in, const std::vector<k::Tensor>&) {
              return k::layer_normalization(in, {}, {}, {-1}, 1e-5);
            },
            tol);
  }
  {
    L::GroupNormalization gn({.groups = 3, .epsilon = 1e-3});
    const k::Tensor x = k::random::normal({2, 3, 4, 6}, -2.0, 2.0, k::float32, 5);
    gn(x);
    set_weights(*gn.get(), {k::random::normal({6}, 1.0, 0.5, k::float32, 6),
                            k::random::normal({6}, 0.0, 0.5, k::float32, 7)});
    compare("GroupNormalization, 3 groups of 2 channels over 3x4", *gn.get(), x,
            [](const k::Tensor& in, const std::vector<k::Tensor>& w) {
              return composed_group_norm(in, w[0], w[1], 3, 1e-3);
            },
            tol);
  }
  {
    L::RMSNormalization rms({.epsilon = 1e-6});
    const k::Tensor x = k::random::normal({3, 2, 20}, 0.5, 2.0, k::float32, 8);
    rms(x);
    set_weights(*rms.get(), {k::random::normal({20}, 1.0, 0.5, k::float32, 9)});
    compare("RMSNormalization", *rms.get(), x,
            [](const k::Tensor& in, const std::vector<k::Tensor>& w) {
              return k::rms_normalization(in, w[0], {-1}, 1e-6);
            },
            tol);
  }
}

TEST_CASE("fused normalization: second-order gradients go through the composed backward") {
  k::random::set_seed(6);
  L::GroupNormalization gn({.groups = 2, .epsilon = 1e-3, .dtype = k::float64});
  const k::Tensor x = k::random::normal({2, 5, 4}, 0.0, 2.0, k::float64, 12);
  gn(x);
  const k::Tensor gamma = gn->trainable_variables()[0].value(), beta = gn->trainable_variables()[1].value();
  auto grad_norm = [&](const std::function<k::Tensor(const k::Tensor&)>& f) {
    k::GradientTape outer;
    outer.watch(x);
    k::Tensor g;
    {
      k::GradientTape inner;
      inner.watch(x);
      g = *inner.gradient(k::sum(k::square(f(x))), x);
    }
    return *outer.gradient(k::sum(g * g), x);
  };
  const k::Tensor fused = grad_norm([&](const k::Tensor& in) { return gn(in); });
  const k::Tensor composed =
      grad_norm([&](const k::Tensor& in) { return composed_group_norm(in, gamma, beta, 2, 1e-3); });
  check_close(fused, composed, 1e-9, "second-order gradient");
}

TEST_CASE("fused normalization: a traced function replays it at another batch size") {
  k::random::set_seed(7);
  L::LayerNormalization ln;
  auto f = k::function([&](const k::Tensor& x) { return ln(x); },
                       {.name = "layer_norm", .input_signature = {k::TensorSpec({-1, 16}, k::float32)}});
  for (int64_t n : {3, 9, 3}) {
    const k::Tensor x = k::random::normal({n, 16}, 1.0, 2.0, k::float32, 20 + static_cast<uint64_t>(n));
    const k::Tensor y = f(x);
    check_close(y, k::layer_normalization(x, ln->gamma().value(), ln->beta().value(), {-1}, 1e-3), 2e-5,
                "traced, batch " + std::to_string(n));
  }
  CHECK(f.tracing_count() == 1);
}

}  // namespace test_normalization_kernels
