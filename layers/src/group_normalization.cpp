// GroupNormalization: a reshape that splits the channel axis into (groups, channels / groups),
// moments over every axis but the batch and the group axis, then the per-channel affine.
#include "kiln/layers/group_normalization.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "config_fields.h"

namespace kiln::layers {

using namespace detail;

GroupNormalizationImpl::GroupNormalizationImpl(GroupNormalizationOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  if (o_.groups == 0 || o_.groups < -1)
    throw ValueError("GroupNormalization: `groups` must be a positive integer or -1, got " + std::to_string(o_.groups));
  apply_input_shape(*this, o_);
  set_autocast(false);  // inputs keep their dtype: statistics of a float32 input stay exact under mixed policies
}

void GroupNormalizationImpl::build(const Shape& s) {
  const std::string who = "Layer '" + name() + "' (GroupNormalization)";
  axis_ = o_.axis < 0 ? o_.axis + static_cast<int>(s.rank()) : o_.axis;
  if (axis_ < 1 || axis_ >= s.rank())
    throw ValueError(who + ": invalid axis " + std::to_string(o_.axis) + " for input with shape " + s.to_string());
  const int64_t dim = s[axis_];
  if (dim < 0)
    throw ValueError(who + ": axis " + std::to_string(o_.axis) +
                     " of the input should have a defined dimension but the layer received an input with shape " +
                     s.to_string());
  groups_ = o_.groups == -1 ? static_cast<int>(dim) : o_.groups;
  if (dim < groups_)
    throw ValueError(who + ": number of groups (" + std::to_string(groups_) + ") cannot be more than the number of channels (" +
                     std::to_string(dim) + ").");
  if (dim % groups_ != 0)
    throw ValueError(who + ": number of groups (" + std::to_string(groups_) + ") must be a multiple of the number of channels (" +
                     std::to_string(dim) + ").");
  if (o_.scale)
    gamma_ = add_weight("gamma", {dim},
                        {.initializer = o_.gamma_initializer, .regularizer = o_.gamma_regularizer, .constraint = o_.gamma_constraint,
                         .autocast = false});
  if (o_.center)
    beta_ = add_weight("beta", {dim},
                       {.initializer = o_.beta_initializer, .regularizer = o_.beta_regularizer, .constraint = o_.beta_constraint,
                        .autocast = false});
  InputSpec spec{.ndim = s.rank()};
  spec.axes[axis_] = dim;
  set_input_spec({spec});
}

Tensor GroupNormalizationImpl::call(const Tensor& input, bool) {
  // Keras normalizes 16-bit inputs in float32 and casts the result back.
  const Tensor x = cast_to_compute(input, statistics_dtype(compute_dtype()));
  const Shape& s = x.shape();
  if (axis_ == s.rank() - 1 && s.rank() >= 2) {
    ops::NormGroups g{s[0], 1, groups_, s[axis_] / groups_};
    for (int64_t i = 1; i + 1 < s.rank(); ++i) g.spatial *= s[i];
    if (auto y = ops::normalize_groups(x, o_.scale ? gamma_.value() : Tensor(), o_.center ? beta_.value() : Tensor(),
                                       g, o_.epsilon))
      return cast_to_compute(*y, compute_dtype());
  }
  // (b, ..., C, ...) -> (b, ..., groups, C / groups, ...)
  Shape grouped;
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (i == axis_) {
      grouped.push_back(groups_);
      grouped.push_back(s[i] / groups_);
    } else {
      grouped.push_back(s[i]);
    }
  }
  std::vector<int> reduce;
  for (int i = 1; i < static_cast<int>(grouped.rank()); ++i)
    if (i != axis_) reduce.push_back(i);
  Tensor g = reshape(x, grouped);
  Tensor m = mean(g, reduce, true);
  Tensor v = var(g, reduce, true);
  Tensor y = reshape((g - m) * rsqrt(v + o_.epsilon), s);
  Shape channel_shape(std::vector<int64_t>(s.rank(), 1));
  channel_shape[axis_] = s[axis_];
  if (o_.scale) y = y * reshape(gamma_.value(), channel_shape);
  if (o_.center) y = y + reshape(beta_.value(), channel_shape);
  return cast_to_compute(y, compute_dtype());
}

Config GroupNormalizationImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(GroupNormalizationImpl, "GroupNormalization")

}  // namespace kiln::layers
