#pragma once
// GroupNormalization (Wu & He 2018): the channels of `axis` are split into
// `groups` groups, and each sample is normalised over each group and every
// other non-batch axis:
//   y = gamma · (x - mean_g) / sqrt(var_g + epsilon) + beta
// gamma and beta have one entry per channel. groups = -1 means one group per
// channel (instance normalization); groups = 1 normalises like LayerNormalization
// over all non-batch axes. The channel count must be a multiple of groups.
//   L::GroupNormalization({.groups = 4});   (batch, ..., channels) -> same shape
#include <string>

#include "kiln/core/fields.h"
#include "kiln/nn/layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of GroupNormalization (Keras's `GroupNormalization` constructor arguments).
struct GroupNormalizationOptions {
  int groups = 32;  ///< Number of channel groups; -1: one per channel (instance normalization).
  int axis = -1;  ///< The channel axis.
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
  KILN_FIELDS(GroupNormalizationOptions, groups, axis, epsilon, center, scale, beta_initializer, gamma_initializer,
              beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint)
};

/// Group normalization (Wu & He 2018, Keras's `GroupNormalization`): the channels of `axis`
/// are split into `groups` groups and each sample is normalised over each group and every
/// other non-batch axis, y = gamma · (x - mean_g) / sqrt(var_g + epsilon) + beta, with gamma
/// and beta per channel. Output shape = input shape; the channel count must be a multiple of
/// groups. Defaults: 32 groups, axis -1, epsilon 1e-3.
/// Users create it through the handle `kiln::layers::GroupNormalization({...})`.
class GroupNormalizationImpl : public Layer {
 public:
  /// Creates the layer from its options.
  explicit GroupNormalizationImpl(GroupNormalizationOptions options = {});
  std::string class_name() const override { return "GroupNormalization"; }
  Config get_config() const override;
  using Options = GroupNormalizationOptions;  ///< The options struct the constructor takes.
  const GroupNormalizationOptions& options() const { return o_; }  ///< The options this layer was created with.
  KILN_ARGS(GroupNormalizationImpl)
  Shape compute_output_shape(const Shape& input_shape) override { return input_shape; }
  using Layer::compute_output_shape;

 protected:
  void build(const Shape& input_shape) override;
  Tensor call(const Tensor& x, bool training) override;
  using Layer::build;
  using Layer::call;

 private:
  GroupNormalizationOptions o_;
  int axis_ = -1, groups_ = 0;  // normalised in build
  Variable gamma_, beta_;
};

KILN_LAYER_HANDLE(GroupNormalization);

}  // namespace kiln::layers
