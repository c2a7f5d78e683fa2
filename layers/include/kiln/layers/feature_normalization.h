#pragma once
// Normalization (keras.layers.Normalization): shifts and scales each feature of
// `axis` (the kept axes; default -1, the last) to mean 0 and variance 1:
//   y = (x - mean) / max(sqrt(variance), 1e-7)
//   invert=true: y = mean + x · max(sqrt(variance), 1e-7)   (undoes the above)
// mean and variance are given (a scalar, or one value per feature of the kept
// axes), or computed from data by adapt(data): the mean and population variance
// over every axis that is not kept. An axis of None (an empty list) keeps no
// axis: one mean and variance for all of x.
//   L::Normalization norm;  norm->adapt(train_x);  y = norm(x);
//   L::Normalization({.mean = std::vector<double>{1, 2}, .variance = std::vector<double>{4, 9}});
// Weights when adapted: mean and variance (non-trainable, the kept axes' shape)
// and count (int32, as Keras); given mean/variance make no weights.
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln::layers {

/// Options of Normalization (Keras's `Normalization` constructor arguments).
struct NormalizationOptions {
  Axes axis = -1;  ///< The kept axes, with one mean and variance per feature; none (empty): no axis kept.
  std::optional<std::vector<double>> mean;  ///< Given means (a scalar or one per feature); none: adapt() computes them.
  std::optional<std::vector<double>> variance;  ///< Given variances (a scalar or one per feature); none: adapt() computes them.
  bool invert = false;  ///< Undo the normalization: y = mean + x · stddev.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(NormalizationOptions, axis, invert, mean, variance)
};

/// Shifts and scales each feature of `axis` to mean 0 and variance 1 (Keras's
/// `Normalization`): y = (x - mean) / max(sqrt(variance), 1e-7), or with invert the
/// reverse. mean and variance are given, or computed by adapt(data): the mean and
/// population variance over every axis that is not kept. Output shape = input shape.
/// Adapted weights: mean, variance (non-trainable) and count. Users create it through the
/// handle `kiln::layers::Normalization({...})`, then call `norm->adapt(train_x)`.
class NormalizationImpl : public Layer {
 public:
  /// Creates the layer from its options.
  explicit NormalizationImpl(NormalizationOptions options = {});
  std::string class_name() const override { return "Normalization"; }
  Config get_config() const override;
  using Options = NormalizationOptions;  ///< The options struct the constructor takes.
  const NormalizationOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(NormalizationImpl)
  /// Keras 3 writes a build_config for this class even without weights (Python's build()).
  static constexpr bool records_build_config = true;
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;
  /// Computes mean and variance of `data` (samples on axis 0) over the axes not
  /// kept, and stores them in the mean and variance weights. Builds the layer
  /// from data's shape (batch axis free) when it is not built yet.
  void adapt(const Tensor& data);
  /// The mean in use, broadcastable against the input.
  Tensor mean() const;
  /// The variance in use, broadcastable against the input.
  Tensor variance() const;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  Tensor given(const std::vector<double>& v) const;
  NormalizationOptions o_;
  std::vector<int> keep_, reduce_;
  Shape broadcast_shape_;
  Variable mean_, variance_, count_;
};

KILN_LAYER_HANDLE(Normalization);

}  // namespace kiln::layers
