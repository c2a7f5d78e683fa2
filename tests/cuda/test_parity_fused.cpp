// Parity of the GPU's fused kernels against the CPU: the optimizer updates
// (one launch per variable), batch normalization through cuDNN (training,
// its gradient, inference), bias + relu, and the element-wise chains that
// kiln::function fuses into one launch.
#include <doctest/doctest.h>

#include <kiln/kiln.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpu_test_util.h"

namespace k = kiln;
namespace O = kiln::optimizers;
using k::Tensor;
using namespace kiln::cudatest;

namespace {

Tensor rnd(const k::Shape& s, k::DType d, uint64_t seed) { return k::random::normal(s, 0, 1, d, seed); }

/// Five steps of `make()` on one variable (and its slots) per device, with the same gradients.
void optimizer_parity(const std::string& name, const std::function<std::shared_ptr<k::Optimizer>()>& make) {
  for (k::DType d : {k::float32, k::float64}) {
    INFO(name, " in ", k::dtype_name(d));
    const Tensor init = rnd({37, 5}, d, 1);
    k::Variable vc(init), vg(init.to(gpu()));
    auto oc = make(), og = make();
    for (int step = 0; step < 5; ++step) {
      const Tensor g = rnd({37, 5}, d, 100 + step);
      oc->apply({g}, {vc});
      og->apply({g.to(gpu())}, {vg});
    }
    REQUIRE(vg.device() == gpu());
    check_close(name + ": variable", vc.value(), vg.value().to(k::Device::cpu()), tol_for(d));
    const auto sc = oc->variables(), sg = og->variables();
    REQUIRE(sc.size() == sg.size());
    for (std::size_t i = 0; i < sc.size(); ++i)
      if (sc[i].shape() == init.shape())
        check_close(name + ": slot " + sc[i].name(), sc[i].value(), sg[i].value().to(k::Device::cpu()), tol_for(d));
  }
}

}  // namespace

TEST_CASE("GPU parity: fused optimizer updates (Adam, AdamW, SGD, RMSprop)") {
  KILN_REQUIRE_GPU("optimizer update parity");
  optimizer_parity("Adam", [] { return std::make_shared<O::Adam>(O::AdamOptions{.learning_rate = 0.01}); });
  optimizer_parity("Adam amsgrad",
                   [] { return std::make_shared<O::Adam>(O::AdamOptions{.learning_rate = 0.01, .amsgrad = true}); });
  optimizer_parity("AdamW", [] { return std::make_shared<O::AdamW>(O::AdamWOptions{.learning_rate = 0.01}); });
  optimizer_parity("SGD", [] { return std::make_shared<O::SGD>(O::SGDOptions{.learning_rate = 0.1}); });
  optimizer_parity("SGD momentum",
                   [] { return std::make_shared<O::SGD>(O::SGDOptions{.learning_rate = 0.1, .momentum = 0.9}); });
  optimizer_parity("SGD nesterov", [] {
    return std::make_shared<O::SGD>(O::SGDOptions{.learning_rate = 0.1, .momentum = 0.9, .nesterov = true});
  });
  optimizer_parity("RMSprop", [] { return std::make_shared<O::RMSprop>(O::RMSpropOptions{.learning_rate = 0.01}); });
  optimizer_parity("RMSprop momentum", [] {
    return std::make_shared<O::RMSprop>(O::RMSpropOptions{.learning_rate = 0.01, .momentum = 0.5});
  });
  optimizer_parity("RMSprop centered", [] {
    return std::make_shared<O::RMSprop>(O::RMSpropOptions{.learning_rate = 0.01, .centered = true});
  });
}

TEST_CASE("GPU parity: batch normalization (training, its gradient, inference)") {
  KILN_REQUIRE_GPU("batch norm parity");
  for (k::DType d : {k::float32, k::float64}) {
    for (bool affine : {true, false}) {
      INFO(k::dtype_name(d), affine ? " with" : " without", " gamma and beta");
      const Tensor x = rnd({6, 5, 4, 3}, d, 7) * 3.0 + 1.0;
      const Tensor gamma = affine ? rnd({3}, d, 8) : Tensor(), beta = affine ? rnd({3}, d, 9) : Tensor();
      parity("batch_norm_training",
             [&](const std::vector<Tensor>& v) {
               return k::batch_norm_training(v[0], affine ? v[1] : Tensor(), affine ? v[2] : Tensor(), 1e-3).y;
             },
             affine ? std::vector<Tensor>{x, gamma, beta} : std::vector<Tensor>{x});
      // The statistics, with no tape: the fused kernel's own outputs.
      auto on = [&](k::Device dev) {
        return k::batch_norm_training(x.to(dev), affine ? gamma.to(dev) : Tensor(), affine ? beta.to(dev) : Tensor(),
                                      1e-3);
      };
      const auto c = on(k::Device::cpu()), g = on(gpu());
      check_close("batch mean", c.mean, g.mean.to(k::Device::cpu()), tol_for(d));
      check_close("batch variance", c.variance, g.variance.to(k::Device::cpu()), tol_for(d));
      check_close("y without a tape", c.y, g.y.to(k::Device::cpu()), tol_for(d));
      const Tensor mean = rnd({3}, d, 10), var = k::abs(rnd({3}, d, 11)) + 0.5;
      auto infer = [&](k::Device dev) {
        return k::batch_norm_inference(x.to(dev), mean.to(dev), var.to(dev), affine ? gamma.to(dev) : Tensor(),
                                       affine ? beta.to(dev) : Tensor(), 1e-3)
            .to(k::Device::cpu());
      };
      check_close("batch_norm_inference", infer(k::Device::cpu()), infer(gpu()), tol_for(d));
      parity("batch_norm_inference under a tape",
             [&](const std::vector<Tensor>& v) {
               return k::batch_norm_inference(v[0], v[1], v[2], Tensor(), Tensor(), 1e-3);
             },
             {x, mean, var});
    }
  }
}

TEST_CASE("GPU parity: bias_add and its relu, forward and backward") {
  KILN_REQUIRE_GPU("bias_add parity");
  for (k::DType d : {k::float32, k::float64})
    for (bool relu : {false, true})
      parity(std::string("bias_add relu=") + (relu ? "true" : "false"),
             [relu](const std::vector<Tensor>& v) { return k::bias_add(v[0], v[1], relu); },
             {rnd({4, 7, 6}, d, 20), rnd({6}, d, 21)});
}

TEST_CASE("GPU parity: element-wise chains fused by kiln::function") {
  KILN_REQUIRE_GPU("fused element-wise parity");
  auto chain = [](const Tensor& x, const Tensor& y) {
    Tensor a = k::relu(x * 2.0 + 1.0) * y - k::tanh(x) * x;
    return k::exp(-(a * a)) + k::sigmoid(a) / (k::abs(y) + 1.0);
  };
  for (k::DType d : {k::float32, k::float64}) {
    INFO(k::dtype_name(d));
    const Tensor x = rnd({33, 65}, d, 30), y = rnd({33, 65}, d, 31);
    auto fn = k::function([&](const Tensor& a, const Tensor& b) { return chain(a, b); });
    const Tensor want = chain(x, y);
    const Tensor xg = x.to(gpu()), yg = y.to(gpu());
    Tensor got = fn(xg, yg);  // traces
    got = fn(xg, yg);         // replays the fused graph
    check_close("traced chain on the GPU", want, got.to(k::Device::cpu()), tol_for(d));
  }
  // Integers fuse too.
  auto ichain = [](const Tensor& x, const Tensor& y) { return k::maximum(x * y - x, y) + k::abs(x); };
  const Tensor xi = k::cast(rnd({100}, k::float32, 32) * 50.0, k::int32), yi = k::cast(rnd({100}, k::float32, 33) * 50.0, k::int32);
  auto fi = k::function([&](const Tensor& a, const Tensor& b) { return ichain(a, b); });
  Tensor gi = fi(xi.to(gpu()), yi.to(gpu()));
  gi = fi(xi.to(gpu()), yi.to(gpu()));
  CHECK(ichain(xi, yi).to_vector<int32_t>() == gi.to(k::Device::cpu()).to_vector<int32_t>());
}
