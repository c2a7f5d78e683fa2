// keras.ops' Fourier transforms by name (kiln/ops/fft_ops.h): complex values as
// (real, imaginary) pairs, as Keras's ops take and return them; the fft oracle
// group (tests/oracle/oracle_fft.py) compares them with Keras.
#include <optional>
#include <string>
#include <vector>

#include "kiln/ops/fft_ops.h"
#include "nn/keras_op_table.h"

namespace kiln::detail::keras_ops_fft {

using namespace keras_op_api;

namespace {

Window window_of(const json& p) {
  if (!p.contains("window")) return Window("hann");
  const json& w = p.at("window");
  if (w.is_null()) return Window(std::nullopt);
  if (w.is_string()) return Window(w.get<std::string>());
  return Window(w.get<std::vector<double>>());
}

std::optional<int64_t> optional_int(const json& p, const char* key) {
  if (!p.contains(key) || p.at(key).is_null()) return std::nullopt;
  return p.at(key).get<int64_t>();
}

Outputs pair(const ComplexPair& p) { return {p.first, p.second}; }

struct Framing {
  int64_t length, stride, fft_length;
  bool center;
};
Framing framing(const json& p) {
  return {param<int64_t>(p, "sequence_length", 0), param<int64_t>(p, "sequence_stride", 0),
          param<int64_t>(p, "fft_length", 0), param(p, "center", true)};
}

const OpEntries entries{
    {"fft", [](const Inputs& x, const json&) { return pair(fft(x.at(0), x.at(1))); }},
    {"fft2", [](const Inputs& x, const json&) { return pair(fft2(x.at(0), x.at(1))); }},
    {"ifft2", [](const Inputs& x, const json&) { return pair(ifft2(x.at(0), x.at(1))); }},
    {"rfft", [](const Inputs& x, const json& p) { return pair(rfft(x.at(0), optional_int(p, "fft_length"))); }},
    {"irfft",
     [](const Inputs& x, const json& p) { return Outputs{irfft(x.at(0), x.at(1), optional_int(p, "fft_length"))}; }},
    {"stft",
     [](const Inputs& x, const json& p) {
       const Framing f = framing(p);
       return pair(stft(x.at(0), f.length, f.stride, f.fft_length, window_of(p), f.center));
     }},
    {"istft",
     [](const Inputs& x, const json& p) {
       const Framing f = framing(p);
       return Outputs{istft(x.at(0), x.at(1), f.length, f.stride, f.fft_length, optional_int(p, "length"),
                            window_of(p), f.center)};
     }},
};

}  // namespace

}  // namespace kiln::detail::keras_ops_fft

namespace kiln::detail {

keras_op_api::OpEntries keras_ops_fft_table() { return keras_ops_fft::entries; }

}  // namespace kiln::detail
