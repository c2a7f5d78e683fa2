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

struct SpatialDropout1DOptions {
  std::optional<uint64_t> seed;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(SpatialDropout1DOptions, seed)
};

struct SpatialDropoutOptions {
  std::string data_format = "channels_last";
  std::optional<uint64_t> seed;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(SpatialDropoutOptions, data_format, seed)
};

/// The shared rule; `spatial_rank` is 1, 2 or 3.
class SpatialDropoutBase : public Layer {
 public:
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;
  double rate() const { return rate_; }

 protected:
  SpatialDropoutBase(const std::string& cls, int spatial_rank, double rate, LayerOptions base,
                     std::optional<uint64_t> seed, const std::string& data_format);
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;
  /// Keras writes no "trainable" key for these classes (their constructors take none).
  Config trim_config(Config c) const;
  double rate_;

 private:
  int spatial_rank_;
  std::optional<uint64_t> seed_;
  bool channels_first_;
  uint64_t calls_ = 0;
};

class SpatialDropout1DImpl : public SpatialDropoutBase {
 public:
  explicit SpatialDropout1DImpl(double rate, SpatialDropout1DOptions options = {});
  std::string class_name() const override { return "SpatialDropout1D"; }
  Config get_config() const override;
  using Options = SpatialDropout1DOptions;
  const Options& options() const { return o_; }
  KILN_ARGS(SpatialDropout1DImpl, rate_)

 private:
  Options o_;
};

class SpatialDropout2DImpl : public SpatialDropoutBase {
 public:
  explicit SpatialDropout2DImpl(double rate, SpatialDropoutOptions options = {});
  std::string class_name() const override { return "SpatialDropout2D"; }
  Config get_config() const override;
  using Options = SpatialDropoutOptions;
  const Options& options() const { return o_; }
  KILN_ARGS(SpatialDropout2DImpl, rate_)

 private:
  Options o_;
};

class SpatialDropout3DImpl : public SpatialDropoutBase {
 public:
  explicit SpatialDropout3DImpl(double rate, SpatialDropoutOptions options = {});
  std::string class_name() const override { return "SpatialDropout3D"; }
  Config get_config() const override;
  using Options = SpatialDropoutOptions;
  const Options& options() const { return o_; }
  KILN_ARGS(SpatialDropout3DImpl, rate_)

 private:
  Options o_;
};

KILN_LAYER_HANDLE(SpatialDropout1D);
KILN_LAYER_HANDLE(SpatialDropout2D);
KILN_LAYER_HANDLE(SpatialDropout3D);

}  // namespace kiln::layers
