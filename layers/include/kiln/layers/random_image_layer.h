#pragma once
// What Keras 3's image augmentation layers share (BaseImagePreprocessingLayer):
// images of rank 4, (batch, H, W, C), or rank 3, one image (channels_first: C
// before H and W); active only with training=true, the identity at inference;
// a seeded layer draws from its own reproducible sequence (the same seed gives
// the same outputs, call by call), an unseeded one from the global generator.
//   Factor: Keras's `factor` argument, a number f (the range (-|f|, |f|), clipped
//   to the layer's bounds) or a pair (lower, upper).
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "kiln/nn/layer.h"

namespace kiln::layers {

/// A number or a (lower, upper) pair, written back to a config as it was given.
struct Factor {
  std::vector<double> values;  ///< One number, or (lower, upper).
  /// An empty factor (not given).
  Factor() = default;
  Factor(double v) : values{v} {}  ///< One number f: the range (-|f|, |f|), clipped to the layer's bounds.
  Factor(int v) : values{static_cast<double>(v)} {}  ///< One number f, as an int.
  Factor(double lower, double upper) : values{lower, upper} {}  ///< The range (lower, upper).
  Factor(std::initializer_list<double> v) : values(v) {}  ///< One value or a pair, as a list.
  bool is_pair() const { return values.size() == 2; }  ///< Whether a (lower, upper) pair was given.
  bool operator==(const Factor&) const = default;  ///< Same values.
};

/// What Keras 3's image augmentation layers share (BaseImagePreprocessingLayer): images of
/// rank 4, (batch, H, W, C), or rank 3, one image (channels_first: C before H and W); active
/// only with training=true, the identity at inference. A seeded layer draws from its own
/// reproducible sequence, an unseeded one from the global generator. Output shape = input shape.
class RandomImageLayer : public Layer {
 public:
  /// Keras's call(..., training=True): called directly, the layer augments.
  std::optional<bool> default_training() const override { return true; }
  using Layer::Layer;
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;

 protected:
  /// The seed of this call's draws: a fresh, reproducible one per call of a seeded layer.
  std::optional<uint64_t> next_seed(const std::optional<uint64_t>& seed);
  /// Checks rank 3 or 4; returns the input as a float (batch, H, W, C) batch in the layer's dtype.
  Tensor to_batch(const Tensor& x, const std::string& data_format) const;
  /// The inverse of to_batch for an input of rank `rank`.
  static Tensor from_batch(const Tensor& y, int64_t rank, const std::string& data_format);

 private:
  uint64_t calls_ = 0;
};

}  // namespace kiln::layers
