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

struct GroupNormalizationOptions {
  int groups = 32;
  int axis = -1;
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
  KILN_FIELDS(GroupNormalizationOptions, groups, axis, epsilon, center, scale, beta_initializer, gamma_initializer,
              beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint)
};

class GroupNormalizationImpl : public Layer {
 public:
  explicit GroupNormalizationImpl(GroupNormalizationOptions options = {});
  std::string class_name() const override { return "GroupNormalization"; }
  Config get_config() const override;
  using Options = GroupNormalizationOptions;
  const GroupNormalizationOptions& options() const { return o_; }
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
