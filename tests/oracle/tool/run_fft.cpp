// keras.ops' Fourier transforms (kiln/ops/fft_ops.h, through the library's keras.ops
// table) on the oracle's arrays.
#include <stdexcept>
#include <string>
#include <vector>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/ops/ops.h"
#include "nn/keras_op_table.h"
#include "oracle_io.h"

namespace oracle {

// {"name", "params": {keyword: value}, "inputs": [npy...], "cotangents": [npy per output]}.
// Writes out_<i> and grad_<j> (d sum_i(out_i · cotangent_i) / d input j).
int run_fft(const Group& g) {
  g.for_each_case([&](const json& c) {
    const std::vector<kiln::Tensor> xs = g.arrays(c.at("inputs"));
    const std::vector<kiln::Tensor> cots = g.arrays(c.at("cotangents"));
    kiln::GradientTape tape;
    std::vector<kiln::Source> sources;
    for (const auto& x : xs) {
      tape.watch(x);
      sources.emplace_back(x);
    }
    const std::string name = c.at("name").get<std::string>();
    const auto* fn = kiln::detail::find_keras_op(name);
    if (!fn) throw std::runtime_error("no op '" + name + "' in the keras.ops table");
    const std::vector<kiln::Tensor> outs = (*fn)(xs, c.at("params"));
    kiln::Tensor target;
    for (std::size_t i = 0; i < outs.size(); ++i) {
      g.save(c, "out_" + std::to_string(i), outs[i]);
      kiln::Tensor t = kiln::sum(outs[i] * cots[i]);
      target = i == 0 ? t : target + t;
    }
    auto grads = tape.gradient(target, sources, kiln::UnconnectedGradients::Zero);
    for (std::size_t j = 0; j < grads.size(); ++j)
      g.save(c, "grad_" + std::to_string(j), grads[j] ? *grads[j] : kiln::zeros_like(xs[j]));
  });
  return 0;
}

}  // namespace oracle
