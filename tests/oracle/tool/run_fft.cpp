// keras.ops' Fourier transforms (kiln/ops/fft_ops.h) on the oracle's arrays.
#include <optional>
#include <vector>

#include "kiln/autodiff/gradient_tape.h"
#include "kiln/ops/ops.h"
#include "oracle_io.h"

namespace oracle {

namespace {

kiln::Window window_of(const json& p) {
  if (!p.contains("window")) return kiln::Window("hann");
  const json& w = p.at("window");
  if (w.is_null()) return kiln::Window(std::nullopt);
  if (w.is_string()) return kiln::Window(w.get<std::string>());
  return kiln::Window(w.get<std::vector<double>>());
}

std::optional<int64_t> optional_int(const json& p, const char* key) {
  if (!p.contains(key) || p.at(key).is_null()) return std::nullopt;
  return p.at(key).get<int64_t>();
}

std::vector<kiln::Tensor> pair(const kiln::ComplexPair& p) { return {p.first, p.second}; }

// keras.ops.<name>(*inputs, **params), the outputs as a list (a pair for the complex ones).
std::vector<kiln::Tensor> apply(const std::string& name, const json& p, const std::vector<kiln::Tensor>& x) {
  if (name == "fft") return pair(kiln::fft(x[0], x[1]));
  if (name == "fft2") return pair(kiln::fft2(x[0], x[1]));
  if (name == "ifft2") return pair(kiln::ifft2(x[0], x[1]));
  if (name == "rfft") return pair(kiln::rfft(x[0], optional_int(p, "fft_length")));
  if (name == "irfft") return {kiln::irfft(x[0], x[1], optional_int(p, "fft_length"))};
  const int64_t len = p.value("sequence_length", int64_t{0}), stride = p.value("sequence_stride", int64_t{0});
  const int64_t n = p.value("fft_length", int64_t{0});
  const bool center = p.value("center", true);
  if (name == "stft") return pair(kiln::stft(x[0], len, stride, n, window_of(p), center));
  if (name == "istft") return {kiln::istft(x[0], x[1], len, stride, n, optional_int(p, "length"), window_of(p), center)};
  throw std::runtime_error("no op '" + name + "' in kiln_oracle's fft group");
}

}  // namespace

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
    const std::vector<kiln::Tensor> outs = apply(c.at("name").get<std::string>(), c.at("params"), xs);
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
