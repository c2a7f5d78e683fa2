#pragma once
// Normalization by a norm over `axis`, per sample, with no centring.
//   L::RMSNormalization()       y = x · rsqrt(mean(x², axis) + epsilon) · scale
//                               (Zhang & Sennrich 2019); weight "scale" (ones), one
//                               entry per element of the normalised axes; epsilon 1e-6
//   L::UnitNormalization()      y = x · min(rsqrt(Σ x² over axis), 1e12): unit L2 norm
//                               (no weights; an all-zero vector stays zero)
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln::layers {

struct RMSNormalizationOptions {
  Axes axis = -1;
  double epsilon = 1e-6;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RMSNormalizationOptions, axis, epsilon)
};

class RMSNormalizationImpl : public Layer {
 public:
  explicit RMSNormalizationImpl(RMSNormalizationOptions options = {});
  std::string class_name() const override { return "RMSNormalization"; }
  Config get_config() const override;
  using Options = RMSNormalizationOptions;
  const RMSNormalizationOptions& options() const { return o_; }
  KILN_ARGS(RMSNormalizationImpl)
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  RMSNormalizationOptions o_;
  std::vector<int> axes_;
  Shape broadcast_shape_;
  Variable scale_;
};

KILN_LAYER_HANDLE(RMSNormalization);

struct UnitNormalizationOptions {
  Axes axis = -1;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(UnitNormalizationOptions, axis)
};

class UnitNormalizationImpl : public Layer {
 public:
  explicit UnitNormalizationImpl(UnitNormalizationOptions options = {});
  std::string class_name() const override { return "UnitNormalization"; }
  Config get_config() const override;
  using Options = UnitNormalizationOptions;
  const UnitNormalizationOptions& options() const { return o_; }
  KILN_ARGS(UnitNormalizationImpl)
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  UnitNormalizationOptions o_;
};

KILN_LAYER_HANDLE(UnitNormalization);

}  // namespace kiln::layers
