#pragma once
// UpSampling1D: repeats every time step `size` times (keras.layers.UpSampling1D).
//   x: (batch, steps, features) -> (batch, steps * size, features)
//   steps [a, b] with size 2 -> [a, a, b, b]
//
//   L::UpSampling1D(2)(x);
#include <cstdint>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of UpSampling1D: only the base-layer arguments.
struct UpSampling1DOptions {
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(UpSampling1DOptions)
};

/// Repeats every time step `size` times (Keras's `UpSampling1D`): (batch, steps, features)
/// -> (batch, steps · size, features); steps [a, b] with size 2 give [a, a, b, b]. No
/// weights. Users create it through the handle `kiln::layers::UpSampling1D(size)`.
class UpSampling1DImpl : public Layer {
 public:
  using Options = UpSampling1DOptions;  ///< The options struct the constructor takes.
  /// `size`: the repetitions of each step (default 2).
  explicit UpSampling1DImpl(int64_t size = 2, UpSampling1DOptions options = {});
  std::string class_name() const override { return "UpSampling1D"; }
  Config get_config() const override;
  Shape compute_output_shape(const Shape& input_shape) override;
  using Layer::compute_output_shape;
  int64_t size() const { return size_; }  ///< The repetitions of each step.
  const UpSampling1DOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(UpSampling1DImpl, size_)

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  int64_t size_;
  UpSampling1DOptions o_;
};

KILN_LAYER_HANDLE(UpSampling1D);

}  // namespace kiln::layers
