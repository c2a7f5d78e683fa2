// keras.initializers.STFT: the DFT kernels of the STFTSpectrogram layer. The values are
// computed in the requested dtype in Keras's order of operations (arguments
// (−2·t)·(f / (2·(F − 1)))·π, then cos or sin, times the window, over its norm), so a
// float32 kernel rounds as Keras's does.
#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/nn/initializers.h"
#include "kiln/ops/array_ops.h"
#include "nn/window_config.h"

namespace kiln {

Config window_to_config(const Window& w) {
  if (w.none) return Config(nullptr);
  if (w.name.empty()) return Config(w.values);
  return Config(w.name);
}

Window window_from_config(const Config& c, const std::string& where) {
  if (c.is_null()) return Window(std::nullopt);
  if (c.is_string()) return Window(c.get<std::string>());
  if (c.is_array()) {
    std::vector<double> v;
    for (const auto& e : c) {
      if (!e.is_number()) throw ValueError(where + ": `window` must be a name, a list of numbers or null, got " + c.dump());
      v.push_back(e.get<double>());
    }
    return Window(std::move(v));
  }
  throw ValueError(where + ": `window` must be a name, a list of numbers or null, got " + c.dump());
}

namespace initializers {

namespace {

class STFTInit : public Initializer {
 public:
  STFTInit(std::string side, Window window, std::optional<std::string> scaling, bool periodic)
      : side_(std::move(side)), window_(std::move(window)), scaling_(std::move(scaling)), periodic_(periodic) {
    if (side_ != "real" && side_ != "imag") throw ValueError("side should be 'real' or 'imag', not " + side_);
    if (!window_.none && window_.values.empty()) get_window(window_, 1);  // throws for an unknown name
    if (scaling_ && *scaling_ != "density" && *scaling_ != "spectrum")
      throw ValueError("Scaling is invalid, it must be `None`, 'density' or 'spectrum'. Received scaling=" + *scaling_);
  }
  Tensor operator()(const Shape& shape, DType dtype) const override {
    if (shape.rank() != 3)
      throw ValueError("STFT initializer: expected a shape (frame_length, input_channels, bins), got " + shape.to_string());
    if (dtype == DType::float64) return kernel<double>(shape, dtype);
    return kernel<float>(shape, dtype);
  }
  std::string class_name() const override { return "STFT"; }
  Config get_config() const override {
    return {{"side", side_}, {"window", window_to_config(window_)}, {"periodic", periodic_},
            {"scaling", scaling_ ? Config(*scaling_) : Config(nullptr)}};
  }

 private:
  template <class T>
  Tensor kernel(const Shape& shape, DType dtype) const {
    const int64_t frames = shape[0], channels = shape[1], bins = shape[2];
    std::vector<T> win(static_cast<std::size_t>(frames), T(1));
    T scale = T(1);
    if (!window_.none) {
      win = cast(get_window(window_, frames, periodic_, DType::float64), dtype).template to_vector<T>();
      T acc = T(0);
      for (T w : win) acc += scaling_ && *scaling_ == "density" ? w * w : std::abs(w);
      if (scaling_) scale = *scaling_ == "density" ? std::sqrt(acc) : acc;
    }
    const T fft_length = static_cast<T>((bins - 1) * 2), pi = static_cast<T>(std::numbers::pi);
    std::vector<T> out(static_cast<std::size_t>(frames * channels * bins));
    for (int64_t t = 0; t < frames; ++t)
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t f = 0; f < bins; ++f) {
          const T arg = static_cast<T>(-2) * static_cast<T>(t) * (static_cast<T>(f) / fft_length) * pi;
          T v = side_ == "real" ? std::cos(arg) : std::sin(arg);
          out[(t * channels + c) * bins + f] = window_.none ? v : v * win[t] / scale;
        }
    return cast(Tensor(out, shape), dtype);
  }

  std::string side_;
  Window window_;
  std::optional<std::string> scaling_;
  bool periodic_;
};

}  // namespace

InitializerPtr STFT(std::string side, Window window, std::optional<std::string> scaling, bool periodic) {
  return std::make_shared<STFTInit>(std::move(side), std::move(window), std::move(scaling), periodic);
}

}  // namespace initializers
}  // namespace kiln
