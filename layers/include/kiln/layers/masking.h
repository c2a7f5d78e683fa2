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

struct MaskingOptions {
  double mask_value = 0.0;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(MaskingOptions, mask_value)
};

class MaskingImpl : public Layer {
 public:
  using Options = MaskingOptions;
  explicit MaskingImpl(MaskingOptions options = {});
  std::string class_name() const override { return "Masking"; }
  Config get_config() const override;
  KILN_ARGS(MaskingImpl)
  const MaskingOptions& options() const { return o_; }
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
