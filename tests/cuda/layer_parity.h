#pragma once
// Layer parity between the CPU and cuda:0: a layer is built on the CPU, run
// forward and backward there, moved with layer->to(Device::cuda(0)) and run
// again on the same inputs; the output and the gradients with respect to every
// float input and every trainable weight must agree. A list of inputs calls the
// layer's list form (attention, merge layers) and compares its first output.
#include <doctest/doctest.h>

#include <kiln/kiln.h>

#include <functional>
#include <string>
#include <vector>

#include "gpu_test_util.h"

namespace kiln::cudatest {

struct LayerRun {
  Tensor y;
  std::vector<Tensor> grads;  // float inputs first, then trainable weights
};

inline LayerRun run_layer(Layer& layer, const std::vector<Tensor>& xs_cpu, bool list_call, Device d, bool training) {
  layer.to(d);
  std::vector<Tensor> xs;
  for (const auto& x : xs_cpu) xs.push_back(x.to(d));
  LayerRun r;
  GradientTape tape;
  std::vector<Source> sources;
  for (const auto& x : xs)
    if (is_floating(x.dtype())) {
      tape.watch(x);
      sources.emplace_back(x);
    }
  Tensor y = list_call ? layer(xs, training).at(0) : layer(xs.at(0), training);
  REQUIRE(y.device() == d);
  r.y = y.to(Device::cpu());
  if (!is_floating(y.dtype())) return r;
  Tensor w = random::normal(y.shape(), 0, 1, y.dtype(), 99).to(d);
  Tensor target = sum(multiply(y, w));
  for (const auto& v : layer.trainable_variables()) {
    REQUIRE(v.device() == d);
    sources.emplace_back(v);
  }
  auto g = tape.gradient(target, sources, UnconnectedGradients::Zero);
  for (auto& gi : g) r.grads.push_back(gi->to(Device::cpu()));
  return r;
}

struct LayerParityOptions {
  bool training = false;
  bool int_input = false;
  Tol tol = kF32;
};

/// One layer called with inputs of these shapes (int_input: integers in [0, 10)).
inline void layer_parity_list(const std::string& name, const std::function<LayerPtr()>& make,
                              const std::vector<Shape>& inputs, LayerParityOptions o = {}) {
  INFO("layer ", name);
  random::set_seed(21);
  LayerPtr layer = make();
  std::vector<Tensor> xs;
  uint64_t seed = 6;
  for (const auto& in : inputs)
    xs.push_back(o.int_input ? cast(floor(random::uniform(in, 0, 10, float64, seed++)), int32)
                             : random::normal(in, 0, 1, float32, seed++));
  const bool list_call = xs.size() > 1;
  if (list_call) (*layer)(xs, o.training);
  else (*layer)(xs[0], o.training);  // build on the CPU
  LayerRun c = run_layer(*layer, xs, list_call, Device::cpu(), o.training);
  LayerRun g = run_layer(*layer, xs, list_call, gpu(), o.training);
  layer->to(Device::cpu());
  check_close(name + ": forward", c.y, g.y, o.tol);
  REQUIRE(c.grads.size() == g.grads.size());
  for (std::size_t i = 0; i < c.grads.size(); ++i)
    check_close(name + ": gradient " + std::to_string(i), c.grads[i], g.grads[i], o.tol);
}

inline void layer_parity(const std::string& name, const std::function<LayerPtr()>& make, const Shape& in,
                         LayerParityOptions o = {}) {
  layer_parity_list(name, make, std::vector<Shape>{in}, o);
}

}  // namespace kiln::cudatest
