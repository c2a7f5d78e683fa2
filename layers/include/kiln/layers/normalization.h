#pragma once
// BatchNormalization and LayerNormalization.
//
// BatchNormalization normalises each feature along `axis` (default -1: channels_last):
//   training=true:  y = gamma · (x - mean_B) / sqrt(var_B + epsilon) + beta, with the batch
//                   mean and population variance over every axis except `axis`, and
//                   moving = moving · momentum + batch_stat · (1 - momentum) for both stats;
//   training=false: the same with moving_mean / moving_variance.
// Weights, in order: gamma (ones), beta (zeros), moving_mean (zeros), moving_variance (ones);
// the moving statistics are non-trainable. A frozen layer (trainable=false) always runs
// in inference mode, as in Keras 3.
//   L::BatchNormalization();  L::BatchNormalization({.axis = 1, .momentum = 0.9});
//
// LayerNormalization normalises each example over `axis` (default -1):
//   y = gamma · (x - mean) / sqrt(var + epsilon) + beta, statistics over `axis` only.
//   L::LayerNormalization({.epsilon = 1e-6});
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"
#include "kiln/ops/reduce_ops.h"

namespace kiln::layers {

/// Options of BatchNormalization (Keras's `BatchNormalization` constructor arguments).
struct BatchNormalizationOptions {
  Axes axis = -1;  ///< The feature axis (or axes; tf.keras configs may store a list), -1: channels_last.
  double momentum = 0.99;  ///< Weight of the old value in the moving statistics' update.
  double epsilon = 1e-3;  ///< Added to the variance, for numerical stability.
  bool center = true;  ///< Learns the offset beta (else 0).
  bool scale = true;  ///< Learns the scale gamma (else 1).
  InitializerArg beta_initializer = "zeros";  ///< Initializer of beta (the offset).
  InitializerArg gamma_initializer = "ones";  ///< Initializer of gamma (the scale).
  InitializerArg moving_mean_initializer = "zeros";  ///< Initializer of moving_mean.
  InitializerArg moving_variance_initializer = "ones";  ///< Initializer of moving_variance.
  regularizers::RegularizerPtr beta_regularizer = nullptr;  ///< Penalty on beta (none by default).
  regularizers::RegularizerPtr gamma_regularizer = nullptr;  ///< Penalty on gamma (none by default).
  constraints::ConstraintPtr beta_constraint = nullptr;  ///< Constraint on beta (none by default).
  constraints::ConstraintPtr gamma_constraint = nullptr;  ///< Constraint on gamma (none by default).
  /// Keras 3's synchronized: under a multi-process DataParallel, the batch
  /// statistics come from the whole global batch (summed across ranks, with
  /// their gradients), not from each rank's share of it.
  bool synchronized = false;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(BatchNormalizationOptions, axis, momentum, epsilon, center, scale, beta_initializer, gamma_initializer, moving_mean_initializer, moving_variance_initializer, beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint, synchronized)
};

/// Normalises each feature along `axis` with batch statistics (Keras's `BatchNormalization`).
/// Training: y = gamma · (x - mean_B) / sqrt(var_B + epsilon) + beta, the mean and population
/// variance over every axis but `axis`, and moving = moving · momentum + batch · (1 - momentum);
/// inference uses moving_mean / moving_variance. A frozen layer (trainable=false) always runs
/// in inference mode, as in Keras 3. Output shape = input shape. Weights: gamma, beta,
/// moving_mean, moving_variance (non-trainable). Defaults: momentum 0.99, epsilon 1e-3.
/// Users create it through the handle `kiln::layers::BatchNormalization({...})`.
class BatchNormalizationImpl : public Layer {
 public:
  /// Creates the layer from its options.
  explicit BatchNormalizationImpl(BatchNormalizationOptions options = {});
  std::string class_name() const override { return "BatchNormalization"; }
  Config get_config() const override;
  using Options = BatchNormalizationOptions;  ///< The options struct the constructor takes.
  KILN_ARGS(BatchNormalizationImpl)
  /// Keras 1 (mode) configs, tf.keras 2.2's one-element axis list; renorm is refused.
  static Config upgrade_entry(const Config& entry);
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;
  const BatchNormalizationOptions& options() const { return o_; }  ///< The options this layer was created with.
  Variable gamma() const { return gamma_; }  ///< The scale (`axis` dims); undefined before build or without scale.
  Variable beta() const { return beta_; }  ///< The offset; undefined before build or without center.
  Variable moving_mean() const { return moving_mean_; }  ///< The moving mean (non-trainable); undefined before build.
  Variable moving_variance() const { return moving_variance_; }  ///< The moving variance; undefined before build.

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  Tensor normalize(const Tensor& x, bool training);
  /// The global batch's mean and population variance across all ranks.
  std::pair<Tensor, Tensor> synchronized_moments(const Tensor& x) const;
  BatchNormalizationOptions o_;
  std::vector<int> axes_, reduction_axes_;  // normalised, set in build
  Shape param_shape_, broadcast_shape_;
  Variable gamma_, beta_, moving_mean_, moving_variance_;
};

KILN_LAYER_HANDLE(BatchNormalization);

/// Options of LayerNormalization (Keras's `LayerNormalization` constructor arguments).
struct LayerNormalizationOptions {
  Axes axis = -1;  ///< The axis or axes the statistics are computed over (default: the last).
  double epsilon = 1e-3;  ///< Added to the variance, for numerical stability.
  bool center = true;  ///< Learns the offset beta (else 0).
  bool scale = true;  ///< Learns the scale gamma (else 1).
  InitializerArg beta_initializer = "zeros";  ///< Initializer of beta (the offset).
  InitializerArg gamma_initializer = "ones";  ///< Initializer of gamma (the scale).
  regularizers::RegularizerPtr beta_regularizer = nullptr;  ///< Penalty on beta (none by default).
  regularizers::RegularizerPtr gamma_regularizer = nullptr;  ///< Penalty on gamma (none by default).
  constraints::ConstraintPtr beta_constraint = nullptr;  ///< Constraint on beta (none by default).
  constraints::ConstraintPtr gamma_constraint = nullptr;  ///< Constraint on gamma (none by default).
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(LayerNormalizationOptions, axis, epsilon, center, scale, beta_initializer, gamma_initializer, beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint)
};

/// Normalises each example over `axis` (Keras's `LayerNormalization`): y = gamma · (x -
/// mean) / sqrt(var + epsilon) + beta, the statistics over `axis` only. Output shape = input
/// shape; gamma and beta have the `axis` dims. Defaults: axis -1, epsilon 1e-3.
/// Users create it through the handle `kiln::layers::LayerNormalization({...})`.
class LayerNormalizationImpl : public Layer {
 public:
  /// Creates the layer from its options.
  explicit LayerNormalizationImpl(LayerNormalizationOptions options = {});
  std::string class_name() const override { return "LayerNormalization"; }
  Config get_config() const override;
  using Options = LayerNormalizationOptions;  ///< The options struct the constructor takes.
  const LayerNormalizationOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(LayerNormalizationImpl)
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;
  Variable gamma() const { return gamma_; }  ///< The scale; undefined before build or without scale.
  Variable beta() const { return beta_; }  ///< The offset; undefined before build or without center.

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  LayerNormalizationOptions o_;
  std::vector<int> axes_;
  Shape broadcast_shape_;
  Variable gamma_, beta_;
};

KILN_LAYER_HANDLE(LayerNormalization);

}  // namespace kiln::layers
