#pragma once
// Masking: marks timesteps whose features all equal mask_value as padding.
//   x: (batch, time, features) -> same shape, masked steps set to 0; the output
//   carries the mask any(x != mask_value, axis=-1), shape (batch, time), for the
//   layers after it (kiln/nn/masking.h).
//   L::Masking({.mask_value = 0.0});
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of Masking (Keras's `Masking` constructor arguments).
struct MaskingOptions {
  double mask_value = 0.0;  ///< Timesteps whose features all equal it are masked.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(MaskingOptions, mask_value)
};

/// Marks timesteps whose features all equal mask_value as padding (Keras's `Masking`):
/// (batch, time, features) -> the same shape with masked steps set to 0; the output carries
/// the mask any(x != mask_value, axis=-1), (batch, time), for the layers after it.
/// Users create it through the handle `kiln::layers::Masking({.mask_value = 0.0})`.
class MaskingImpl : public Layer {
 public:
  using Options = MaskingOptions;  ///< The options struct the constructor takes.
  /// Creates the layer from its options.
  explicit MaskingImpl(MaskingOptions options = {});
  std::string class_name() const override { return "Masking"; }
  Config get_config() const override;
  KILN_ARGS(MaskingImpl)
  const MaskingOptions& options() const { return o_; }  ///< The options this layer was created with.
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;
  Tensor compute_mask(const Tensor& x, const Tensor& previous_mask) override;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  MaskingOptions o_;
};

KILN_LAYER_HANDLE(Masking);

}  // namespace kiln::layers
