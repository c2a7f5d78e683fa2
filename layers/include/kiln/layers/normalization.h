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

struct BatchNormalizationOptions {
  Axes axis = -1;  // one axis or several (tf.keras configs may store a list)
  double momentum = 0.99;
  double epsilon = 1e-3;
  bool center = true;
  bool scale = true;
  InitializerArg beta_initializer = "zeros";
  InitializerArg gamma_initializer = "ones";
  InitializerArg moving_mean_initializer = "zeros";
  InitializerArg moving_variance_initializer = "ones";
  regularizers::RegularizerPtr beta_regularizer = nullptr;
  regularizers::RegularizerPtr gamma_regularizer = nullptr;
  constraints::ConstraintPtr beta_constraint = nullptr;
  constraints::ConstraintPtr gamma_constraint = nullptr;
  /// Keras 3's synchronized: under a multi-process DataParallel, the batch
  /// statistics come from the whole global batch (summed across ranks, with
  /// their gradients), not from each rank's share of it.
  bool synchronized = false;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(BatchNormalizationOptions, axis, momentum, epsilon, center, scale, beta_initializer, gamma_initializer, moving_mean_initializer, moving_variance_initializer, beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint, synchronized)
};

class BatchNormalizationImpl : public Layer {
 public:
  explicit BatchNormalizationImpl(BatchNormalizationOptions options = {});
  std::string class_name() const override { return "BatchNormalization"; }
  Config get_config() const override;
  using Options = BatchNormalizationOptions;
  KILN_ARGS(BatchNormalizationImpl)
  /// Keras 1 (mode) configs, tf.keras 2.2's one-element axis list; renorm is refused.
  static Config upgrade_entry(const Config& entry);
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;
  const BatchNormalizationOptions& options() const { return o_; }
  Variable gamma() const { return gamma_; }
  Variable beta() const { return beta_; }
  Variable moving_mean() const { return moving_mean_; }
  Variable moving_variance() const { return moving_variance_; }

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  /// The global batch's mean and population variance across all ranks.
  std::pair<Tensor, Tensor> synchronized_moments(const Tensor& x) const;
  BatchNormalizationOptions o_;
  std::vector<int> axes_, reduction_axes_;  // normalised, set in build
  Shape param_shape_, broadcast_shape_;
  Variable gamma_, beta_, moving_mean_, moving_variance_;
};

KILN_LAYER_HANDLE(BatchNormalization);

struct LayerNormalizationOptions {
  Axes axis = -1;
  double epsilon = 1e-3;
  bool center = true;
  bool scale = true;
  InitializerArg beta_initializer = "zeros";
  InitializerArg gamma_initializer = "ones";
  regularizers::RegularizerPtr beta_regularizer = nullptr;
  regularizers::RegularizerPtr gamma_regularizer = nullptr;
  constraints::ConstraintPtr beta_constraint = nullptr;
  constraints::ConstraintPtr gamma_constraint = nullptr;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(LayerNormalizationOptions, axis, epsilon, center, scale, beta_initializer, gamma_initializer, beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint)
};

class LayerNormalizationImpl : public Layer {
 public:
  explicit LayerNormalizationImpl(LayerNormalizationOptions options = {});
  std::string class_name() const override { return "LayerNormalization"; }
  Config get_config() const override;
  using Options = LayerNormalizationOptions;
  const LayerNormalizationOptions& options() const { return o_; }
  KILN_ARGS(LayerNormalizationImpl)
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;
  Variable gamma() const { return gamma_; }
  Variable beta() const { return beta_; }

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
