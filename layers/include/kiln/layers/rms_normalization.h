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

/// Options of RMSNormalization (Keras's `RMSNormalization` constructor arguments).
struct RMSNormalizationOptions {
  Axes axis = -1;  ///< The axis or axes the norm is taken over (default: the last).
  double epsilon = 1e-6;  ///< Added to the mean square, for numerical stability.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RMSNormalizationOptions, axis, epsilon)
};

/// Root-mean-square normalization (Zhang & Sennrich 2019, Keras's `RMSNormalization`):
/// y = x · rsqrt(mean(x², axis) + epsilon) · scale, per sample, with no centring. The
/// weight "scale" (ones) has one entry per element of the normalised axes. Output shape =
/// input shape; epsilon defaults to 1e-6. Users create it through the handle
/// `kiln::layers::RMSNormalization({...})`.
class RMSNormalizationImpl : public Layer {
 public:
  /// Creates the layer from its options.
  explicit RMSNormalizationImpl(RMSNormalizationOptions options = {});
  std::string class_name() const override { return "RMSNormalization"; }
  Config get_config() const override;
  using Options = RMSNormalizationOptions;  ///< The options struct the constructor takes.
  const RMSNormalizationOptions& options() const { return o_; }  ///< The options this layer was created with.
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

/// Options of UnitNormalization (Keras's `UnitNormalization` constructor arguments).
struct UnitNormalizationOptions {
  Axes axis = -1;  ///< The axis or axes the L2 norm is taken over (default: the last).
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(UnitNormalizationOptions, axis)
};

/// Scales each sample to unit L2 norm over `axis` (Keras's `UnitNormalization`):
/// y = x · min(rsqrt(Σ x²), 1e12); an all-zero vector stays zero. No weights; output
/// shape = input shape. Users create it through the handle `kiln::layers::UnitNormalization({...})`.
class UnitNormalizationImpl : public Layer {
 public:
  /// Creates the layer from its options.
  explicit UnitNormalizationImpl(UnitNormalizationOptions options = {});
  std::string class_name() const override { return "UnitNormalization"; }
  Config get_config() const override;
  using Options = UnitNormalizationOptions;  ///< The options struct the constructor takes.
  const UnitNormalizationOptions& options() const { return o_; }  ///< The options this layer was created with.
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
