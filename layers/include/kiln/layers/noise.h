#pragma once
// Noise layers: active only with training=true; at inference each is the identity.
//   L::GaussianNoise(0.1)       x + N(0, stddev)
//   L::GaussianDropout(0.2)     x * N(1, sqrt(rate / (1 - rate)))
//   L::AlphaDropout(0.1)        dropped units set to -alpha*scale (SELU's saturation value),
//                               then a*x + b keeps mean 0 and variance 1 (Klambauer et al. 2017)
// rate and stddev must be in [0, 1] (Keras). seed: a seeded layer draws its
// noise from its own reproducible sequence; otherwise the global generator.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of GaussianNoise and GaussianDropout (Keras's arguments after stddev / rate).
struct NoiseOptions {
  std::optional<uint64_t> seed;  ///< Seed of the noise; none: the global generator.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(NoiseOptions, seed)
};

/// The shared parts: the identity shape rule and the per-call seed sequence.
class NoiseLayer : public Layer {
 public:
  /// Keras's call(..., training=False): outside training, and unless a caller says otherwise, it is the identity.
  std::optional<bool> default_training() const override { return false; }
  using Layer::Layer;
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;

 protected:
  /// The seed for this call's draw: a fresh one per call of a seeded layer.
  std::optional<uint64_t> next_seed(const std::optional<uint64_t>& seed);

 private:
  uint64_t calls_ = 0;
};

/// Adds Gaussian noise in training, y = x + N(0, stddev) (Keras's `GaussianNoise`); the
/// identity at inference. Output shape = input shape; no weights. Users create it through
/// the handle `kiln::layers::GaussianNoise(stddev, {...})`.
class GaussianNoiseImpl : public NoiseLayer {
 public:
  /// `stddev` of the noise, in [0, 1].
  explicit GaussianNoiseImpl(double stddev, NoiseOptions options = {});
  std::string class_name() const override { return "GaussianNoise"; }
  Config get_config() const override;
  using Options = NoiseOptions;  ///< The options struct the constructor takes.
  const NoiseOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(GaussianNoiseImpl, stddev_)

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  double stddev_;
  NoiseOptions o_;
};

KILN_LAYER_HANDLE(GaussianNoise);

/// Multiplies by Gaussian noise in training, y = x · N(1, sqrt(rate / (1 - rate)))
/// (Keras's `GaussianDropout`); the identity at inference. Output shape = input shape.
/// Users create it through the handle `kiln::layers::GaussianDropout(rate, {...})`.
class GaussianDropoutImpl : public NoiseLayer {
 public:
  /// `rate` in [0, 1].
  explicit GaussianDropoutImpl(double rate, NoiseOptions options = {});
  std::string class_name() const override { return "GaussianDropout"; }
  Config get_config() const override;
  using Options = NoiseOptions;  ///< The options struct the constructor takes.
  const NoiseOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(GaussianDropoutImpl, rate_)

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  double rate_;
  NoiseOptions o_;
};

KILN_LAYER_HANDLE(GaussianDropout);

/// Options of AlphaDropout (Keras's `AlphaDropout` constructor arguments after rate).
struct AlphaDropoutOptions {
  /// The mask's shape; None entries take the input's size.
  std::optional<Shape> noise_shape;
  std::optional<uint64_t> seed;  ///< Seed of the mask; none: the global generator.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(AlphaDropoutOptions, noise_shape, seed)
};

/// Dropout that keeps SELU's self-normalisation (Klambauer et al. 2017, Keras's
/// `AlphaDropout`): in training dropped units are set to -alpha·scale, then a·x + b keeps
/// mean 0 and variance 1; the identity at inference. Output shape = input shape.
/// Users create it through the handle `kiln::layers::AlphaDropout(rate, {...})`.
class AlphaDropoutImpl : public NoiseLayer {
 public:
  /// `rate`: the fraction dropped, in [0, 1].
  explicit AlphaDropoutImpl(double rate, AlphaDropoutOptions options = {});
  std::string class_name() const override { return "AlphaDropout"; }
  Config get_config() const override;
  using Options = AlphaDropoutOptions;  ///< The options struct the constructor takes.
  const AlphaDropoutOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(AlphaDropoutImpl, rate_)

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  double rate_;
  AlphaDropoutOptions o_;
};

KILN_LAYER_HANDLE(AlphaDropout);

}  // namespace kiln::layers
