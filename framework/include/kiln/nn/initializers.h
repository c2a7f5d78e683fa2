#pragma once
// Weight initializers with Keras's names and defaults. Look one up by name
// ("glorot_uniform", "he_normal", "zeros", ...) or construct it.
// To add one: derive from Initializer, implement operator() and get_config,
// and register it in framework/src/nn/initializer_registry.cpp.
//
//   auto init = kiln::initializers::get("he_normal");     // or HeNormal(/*seed=*/42)
//   Tensor w = (*init)({3, 3, 1, 32}, kiln::float32);     // fan_in = 9: stddev sqrt(2/9)
//   Config c = kiln::initializers::serialize(*init);      // {"module": "keras.initializers", ...}
//
// Seeds: a seeded initializer returns the same values on every call; an
// unseeded one draws from the global generator (kiln::random::set_seed), so
// repeated calls differ but whole runs are reproducible.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/config.h"
#include "kiln/core/tensor.h"
#include "kiln/ops/fft_ops.h"

namespace kiln::initializers {

/// Base of every weight initializer (Keras's keras.initializers.Initializer).
class Initializer {
 public:
  virtual ~Initializer() = default;
  /// A tensor of `shape` and `dtype` with initial values.
  virtual Tensor operator()(const Shape& shape, DType dtype) const = 0;
  /// Keras class name, e.g. "GlorotUniform".
  virtual std::string class_name() const = 0;
  /// Initializer config as JSON (Keras's get_config()).
  virtual Config get_config() const;
};
/// A shared initializer.
using InitializerPtr = std::shared_ptr<Initializer>;

/// Resolves "glorot_uniform" / "GlorotUniform" / a {"class_name", "config"} object.
/// Throws NotFoundError listing close matches for an unknown name.
InitializerPtr get(const std::string& name);
/// From {"class_name", "config"} (or Keras's serialize format, or a name).
InitializerPtr from_config(const Config& c);
/// {"module", "class_name", "config", "registered_name"} form used in Keras 3 configs.
Config serialize(const Initializer& i);

/// All zeros (keras.initializers.Zeros).
InitializerPtr Zeros();
/// All ones (keras.initializers.Ones).
InitializerPtr Ones();
/// Every value `value` (keras.initializers.Constant).
InitializerPtr Constant(double value);
/// Normal values (keras.initializers.RandomNormal).
InitializerPtr RandomNormal(double mean = 0.0, double stddev = 0.05, std::optional<uint64_t> seed = std::nullopt);
/// Uniform values in [minval, maxval) (keras.initializers.RandomUniform).
InitializerPtr RandomUniform(double minval = -0.05, double maxval = 0.05, std::optional<uint64_t> seed = std::nullopt);
/// Normal values within two standard deviations (keras.initializers.TruncatedNormal).
InitializerPtr TruncatedNormal(double mean = 0.0, double stddev = 0.05, std::optional<uint64_t> seed = std::nullopt);
/// The axes whose sizes make the fans (Keras 3.15's input_axes / output_axes):
/// fan_in = prod(shape[input_axes]), fan_out = prod(shape[output_axes]) when
/// both are given (negative axes count from the end); otherwise compute_fans's rule.
struct FanAxes {
  std::optional<std::vector<int>> input_axes;  ///< Axes whose sizes multiply to fan_in.
  std::optional<std::vector<int>> output_axes;  ///< Axes whose sizes multiply to fan_out.
};

/// stddev = sqrt(scale / n) (normal; truncated at 2 sd and divided by 0.87962566103423978 to
/// compensate) or limit = sqrt(3 * scale / n) (uniform), n = fan_in, fan_out or their mean.
/// mode: "fan_in" | "fan_out" | "fan_avg"; distribution: "truncated_normal" | "untruncated_normal" | "uniform".
/// glorot_* = (1, fan_avg), he_* = (2, fan_in), lecun_* = (1, fan_in); *_uniform use "uniform".
InitializerPtr VarianceScaling(double scale = 1.0, std::string mode = "fan_in",
                               std::string distribution = "truncated_normal", std::optional<uint64_t> seed = std::nullopt,
                               FanAxes axes = {});
/// VarianceScaling(1, "fan_avg", "uniform") (keras.initializers.GlorotUniform).
InitializerPtr GlorotUniform(std::optional<uint64_t> seed = std::nullopt, FanAxes axes = {});
/// VarianceScaling(1, "fan_avg", "truncated_normal") (keras.initializers.GlorotNormal).
InitializerPtr GlorotNormal(std::optional<uint64_t> seed = std::nullopt, FanAxes axes = {});
/// VarianceScaling(2, "fan_in", "uniform") (keras.initializers.HeUniform).
InitializerPtr HeUniform(std::optional<uint64_t> seed = std::nullopt, FanAxes axes = {});
/// VarianceScaling(2, "fan_in", "truncated_normal") (keras.initializers.HeNormal).
InitializerPtr HeNormal(std::optional<uint64_t> seed = std::nullopt, FanAxes axes = {});
/// VarianceScaling(1, "fan_in", "uniform") (keras.initializers.LecunUniform).
InitializerPtr LecunUniform(std::optional<uint64_t> seed = std::nullopt, FanAxes axes = {});
/// VarianceScaling(1, "fan_in", "truncated_normal") (keras.initializers.LecunNormal).
InitializerPtr LecunNormal(std::optional<uint64_t> seed = std::nullopt, FanAxes axes = {});
/// gain * Q from the QR decomposition of a normal (max(r, c), min(r, c)) matrix, with
/// r = prod(shape[:-1]) and c = shape[-1]: orthonormal columns (or rows when r < c).
/// Rank >= 2. Config {"gain", "seed"}; "OrthogonalInitializer" is accepted as a class name.
InitializerPtr Orthogonal(double gain = 1.0, std::optional<uint64_t> seed = std::nullopt);
/// gain * eye(shape[0], shape[1]); 2D shapes only.
InitializerPtr Identity(double gain = 1.0);

/// keras.initializers.STFT: the kernel of a short-time Fourier transform as a convolution,
/// shape (T, 1, F): kernel[t, 0, f] = cos (side "real") or sin ("imag") of −2π·t·f/(2·(F − 1)),
/// times the window of T samples (symmetric, or periodic when `periodic`) and divided by its
/// L2 norm (scaling "density"), its L1 norm ("spectrum") or nothing (nullopt).
InitializerPtr STFT(std::string side = "real", Window window = Window("hann"),
                    std::optional<std::string> scaling = std::string("density"), bool periodic = false);
/// Keras fan computation: dense (in, out); conv (k..., in, out) -> receptive field × channels.
std::pair<double, double> compute_fans(const Shape& shape);
/// The fans over the given axes when both lists are set, else compute_fans(shape).
std::pair<double, double> compute_fans(const Shape& shape, const FanAxes& axes);

}  // namespace kiln::initializers

namespace kiln {
/// An initializer given by name or object: {.initializer = "zeros"} or an InitializerPtr.
class InitializerArg {
 public:
  InitializerArg() = default;
  /// An initializer by name ("glorot_uniform").
  InitializerArg(const char* name) : name_(name) {}
  /// An initializer by name.
  InitializerArg(std::string name) : name_(std::move(name)) {}
  /// An initializer object.
  InitializerArg(initializers::InitializerPtr p) : ptr_(std::move(p)) {}
  /// True when none was given.
  bool empty() const { return !ptr_ && name_.empty(); }
  /// The initializer object; throws NotFoundError when the name is unknown.
  initializers::InitializerPtr resolve() const { return ptr_ ? ptr_ : initializers::get(name_); }

 private:
  std::string name_;
  initializers::InitializerPtr ptr_;
};
}  // namespace kiln
