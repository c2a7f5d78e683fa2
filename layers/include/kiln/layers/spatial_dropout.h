#pragma once
// SpatialDropout1D/2D/3D: dropout of whole feature maps. During training each
// channel of each sample is zeroed with probability `rate` (the same mask over
// every step or pixel), and the kept ones are scaled by 1 / (1 - rate).
//   L::SpatialDropout1D(0.2)    (batch, steps, channels)
//   L::SpatialDropout2D(0.2)    (batch, H, W, channels), or channels_first (batch, channels, H, W)
//   L::SpatialDropout3D(0.2)    (batch, D, H, W, channels), or channels_first
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of SpatialDropout1D (Keras's `SpatialDropout1D` constructor arguments after rate).
struct SpatialDropout1DOptions {
  std::optional<uint64_t> seed;  ///< Seed of the masks; none: the global generator.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(SpatialDropout1DOptions, seed)
};

/// Options of SpatialDropout2D/3D (Keras's constructor arguments after rate).
struct SpatialDropoutOptions {
  std::string data_format = "channels_last";  ///< "channels_last" or "channels_first".
  std::optional<uint64_t> seed;  ///< Seed of the masks; none: the global generator.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(SpatialDropoutOptions, data_format, seed)
};

/// The shared rule; `spatial_rank` is 1, 2 or 3.
class SpatialDropoutBase : public Layer {
 public:
  /// Keras's call(..., training=False): outside training, and unless a caller says otherwise, it is the identity.
  std::optional<bool> default_training() const override { return false; }
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;
  double rate() const { return rate_; }  ///< The fraction of channels dropped.

 protected:
  /// `cls` names the layer in errors; `spatial_rank` 1, 2 or 3; `base` holds the base-layer options.
  SpatialDropoutBase(const std::string& cls, int spatial_rank, double rate, LayerOptions base,
                     std::optional<uint64_t> seed, const std::string& data_format);
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;
  /// Keras writes no "trainable" key for these classes (their constructors take none).
  Config trim_config(Config c) const;
  double rate_;  ///< See rate().

 private:
  int spatial_rank_;
  std::optional<uint64_t> seed_;
  bool channels_first_;
  uint64_t calls_ = 0;
};

/// Drops whole channels of sequences in training (Keras's `SpatialDropout1D`): each channel
/// of each sample of (batch, steps, channels) is zeroed with probability rate (the same over
/// every step), the kept ones scaled by 1 / (1 - rate); the identity at inference. Output
/// shape = input shape. Users create it through the handle `kiln::layers::SpatialDropout1D(rate)`.
class SpatialDropout1DImpl : public SpatialDropoutBase {
 public:
  /// `rate`: the fraction of channels dropped.
  explicit SpatialDropout1DImpl(double rate, SpatialDropout1DOptions options = {});
  std::string class_name() const override { return "SpatialDropout1D"; }
  Config get_config() const override;
  using Options = SpatialDropout1DOptions;  ///< The options struct the constructor takes.
  const Options& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(SpatialDropout1DImpl, rate_)

 private:
  Options o_;
};

/// Drops whole feature maps in training (Keras's `SpatialDropout2D`): each channel of each
/// sample of (batch, H, W, channels) is zeroed with probability rate (the same over every
/// pixel), the kept ones scaled by 1 / (1 - rate); the identity at inference. Output shape =
/// input shape. Users create it through the handle `kiln::layers::SpatialDropout2D(rate, {...})`.
class SpatialDropout2DImpl : public SpatialDropoutBase {
 public:
  /// `rate`: the fraction of channels dropped.
  explicit SpatialDropout2DImpl(double rate, SpatialDropoutOptions options = {});
  std::string class_name() const override { return "SpatialDropout2D"; }
  Config get_config() const override;
  using Options = SpatialDropoutOptions;  ///< The options struct the constructor takes.
  const Options& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(SpatialDropout2DImpl, rate_)

 private:
  Options o_;
};

/// Drops whole 3D feature maps in training (Keras's `SpatialDropout3D`): each channel of
/// (batch, D, H, W, channels) is zeroed with probability rate, the kept ones scaled by
/// 1 / (1 - rate); the identity at inference. Output shape = input shape. Users create it
/// through the handle `kiln::layers::SpatialDropout3D(rate, {...})`.
class SpatialDropout3DImpl : public SpatialDropoutBase {
 public:
  /// `rate`: the fraction of channels dropped.
  explicit SpatialDropout3DImpl(double rate, SpatialDropoutOptions options = {});
  std::string class_name() const override { return "SpatialDropout3D"; }
  Config get_config() const override;
  using Options = SpatialDropoutOptions;  ///< The options struct the constructor takes.
  const Options& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(SpatialDropout3DImpl, rate_)

 private:
  Options o_;
};

KILN_LAYER_HANDLE(SpatialDropout1D);
KILN_LAYER_HANDLE(SpatialDropout2D);
KILN_LAYER_HANDLE(SpatialDropout3D);

}  // namespace kiln::layers
