// BatchNormalization and LayerNormalization, composed of differentiable ops
// (mean, var, rsqrt) so gradients flow through the batch statistics.
#include <algorithm>
#include <tuple>

#include "core/number_text.h"
#include "kiln/ops/array_ops.h"
#include "kiln/layers/normalization.h"
#include "kiln/distribute/data_parallel.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/nn_ops.h"
#include "config_fields.h"
#include "legacy_config.h"

namespace kiln::layers {

using namespace detail;

namespace {

std::vector<int> normalize_axes(const std::string& who, const Axes& a, const Shape& s) {
  if (!a.axes || a.axes->empty())
    throw ValueError(who + ": `axis` must be an integer or a non-empty list of integers");
  std::vector<int> out;
  for (int ax : *a.axes) {
    int n = ax < 0 ? ax + static_cast<int>(s.rank()) : ax;
    if (n < 0 || n >= s.rank())
      throw ValueError(who + ": invalid axis " + std::to_string(ax) + " for input with shape " + s.to_string());
    if (std::find(out.begin(), out.end(), n) != out.end())
      throw ValueError(who + ": duplicate axis " + std::to_string(ax));
    if (s[n] < 0)
      throw ValueError(who + ": axis " + std::to_string(ax) + " of the input should have a defined dimension, but the input has shape " +
                       s.to_string());
    out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// 1 everywhere except the normalised axes.
Shape broadcast_shape_for(const std::vector<int>& axes, const Shape& s) {
  Shape b;
  for (int64_t i = 0; i < s.rank(); ++i)
    b.push_back(std::find(axes.begin(), axes.end(), static_cast<int>(i)) != axes.end() ? s[i] : 1);
  return b;
}

}  // namespace

// ---- BatchNormalization ----
BatchNormalizationImpl::BatchNormalizationImpl(BatchNormalizationOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  if (!o_.axis.axes || o_.axis.axes->empty())
    throw ValueError("BatchNormalization: `axis` must be an integer or a non-empty list of integers");
  if (!(o_.epsilon > 0)) throw ValueError("BatchNormalization: `epsilon` must be positive, got " + kiln::detail::number_text(o_.epsilon));
  apply_input_shape(*this, o_);
}

void BatchNormalizationImpl::build(const Shape& s) {
  const std::string who = "Layer '" + name() + "' (BatchNormalization)";
  axes_ = normalize_axes(who, o_.axis, s);
  reduction_axes_.clear();
  for (int i = 0; i < s.rank(); ++i)
    if (std::find(axes_.begin(), axes_.end(), i) == axes_.end()) reduction_axes_.push_back(i);
  param_shape_ = Shape();
  for (int a : axes_) param_shape_.push_back(s[a]);
  broadcast_shape_ = broadcast_shape_for(axes_, s);
  if (o_.scale)
    gamma_ = add_weight("gamma", param_shape_,
                        {.initializer = o_.gamma_initializer, .regularizer = o_.gamma_regularizer,
                         .constraint = o_.gamma_constraint, .autocast = false});
  if (o_.center)
    beta_ = add_weight("beta", param_shape_,
                       {.initializer = o_.beta_initializer, .regularizer = o_.beta_regularizer,
                        .constraint = o_.beta_constraint, .autocast = false});
  moving_mean_ = add_weight("moving_mean", param_shape_, {.initializer = o_.moving_mean_initializer, .trainable = false, .autocast = false});
  moving_variance_ =
      add_weight("moving_variance", param_shape_,
                 {.initializer = o_.moving_variance_initializer, .trainable = false, .autocast = false});
  InputSpec spec{.ndim = s.rank()};
  for (int a : axes_) spec.axes[a] = s[a];
  set_input_spec({spec});
}

Tensor BatchNormalizationImpl::call(const Tensor& input, bool training) {
  // Keras normalizes 16-bit inputs in float32 and casts the result back.
  return cast_to_compute(normalize(cast_to_compute(input, statistics_dtype(compute_dtype())), training), compute_dtype());
}

Tensor BatchNormalizationImpl::normalize(const Tensor& x, bool training) {
  Tensor mean_t, var_t;
  const double m = o_.momentum;
  const bool across_ranks = o_.synchronized && distribute::current_strategy() &&
                            distribute::current_strategy()->num_replicas_in_sync() > 1;
  if (training && trainable() && !across_ranks && axes_.size() == 1 && axes_[0] == x.rank() - 1) {
    // Channels last (Dense, NHWC convs): the fused op with its own gradient.
    auto r = batch_norm_training(x, o_.scale ? gamma_.value() : Tensor(), o_.center ? beta_.value() : Tensor(),
                                 o_.epsilon);
    moving_mean_.assign(moving_mean_.read_value_untracked() * m + r.mean * (1.0 - m));
    moving_variance_.assign(moving_variance_.read_value_untracked() * m + r.variance * (1.0 - m));
    return r.y;
  }
  if (training && trainable()) {
    if (across_ranks) {
      std::tie(mean_t, var_t) = synchronized_moments(x);
    } else {
      mean_t = mean(x, reduction_axes_, true);
      var_t = var(x, reduction_axes_, true);  // population variance, as keras.ops.moments
    }
    // Moving statistics: plain assignments outside any gradient.
    Tensor bm = reshape(stop_gradient(mean_t), param_shape_);
    Tensor bv = reshape(stop_gradient(var_t), param_shape_);
    moving_mean_.assign(moving_mean_.read_value_untracked() * m + bm * (1.0 - m));
    moving_variance_.assign(moving_variance_.read_value_untracked() * m + bv * (1.0 - m));
  } else if (axes_.size() == 1 && axes_[0] == x.rank() - 1) {
    return batch_norm_inference(x, moving_mean_.value(), moving_variance_.value(),
                                o_.scale ? gamma_.value() : Tensor(), o_.center ? beta_.value() : Tensor(), o_.epsilon);
  } else {
    mean_t = reshape(moving_mean_.value(), broadcast_shape_);
    var_t = reshape(moving_variance_.value(), broadcast_shape_);
  }
  Tensor inv = rsqrt(var_t + o_.epsilon);
  if (o_.scale) inv = inv * reshape(gamma_.value(), broadcast_shape_);
  Tensor y = (x - mean_t) * inv;
  if (o_.center) y = y + reshape(beta_.value(), broadcast_shape_);
  return y;
}

std::pair<Tensor, Tensor> BatchNormalizationImpl::synchronized_moments(const Tensor& x) const {
  // Keras 3's synchronized moments: sums, sums of squares and counts reduced
  // across ranks, then mean = sum / n and variance = E[x^2] - mean^2.
  int64_t n_local = 1;
  for (int a : reduction_axes_) n_local *= x.shape()[a];
  const Tensor n = distribute::all_reduce(Tensor(static_cast<double>(n_local), x.dtype()));
  const Tensor total = distribute::all_reduce(sum(x, reduction_axes_, true));
  const Tensor squares = distribute::all_reduce(sum(x * x, reduction_axes_, true));
  const Tensor mu = total / n;
  return {mu, relu(squares / n - mu * mu)};
}

Config BatchNormalizationImpl::get_config() const { return layer_config(*this); }

Config BatchNormalizationImpl::upgrade_entry(const Config& e) {
  const Config& c = e["config"];
  if (c.contains("renorm") && c["renorm"].is_boolean() && c["renorm"].get<bool>())
    throw ValueError("BatchNormalization.from_config: renorm=true is not supported");
  Config n = c;
  if (c.contains("mode")) {  // Keras 1
    n = keras1_base_config(c);
    for (const char* k : {"epsilon", "momentum", "axis"})
      if (c.contains(k)) n[k] = c[k];
  }
  // Keras 3's legacy loader turns a one-element axis list into an int (tf.keras 2.2 wrote [2]).
  if (n.contains("axis") && n["axis"].is_array() && n["axis"].size() == 1) n["axis"] = n["axis"][0];
  return n == c ? e : replace_entry(e, "BatchNormalization", n);
}

KILN_REGISTER_LAYER(BatchNormalizationImpl, "BatchNormalization")

// ---- LayerNormalization ----
LayerNormalizationImpl::LayerNormalizationImpl(LayerNormalizationOptions o) : Layer(base_options(o)), o_(std::move(o)) {
  if (!o_.axis.axes || o_.axis.axes->empty())
    throw ValueError("LayerNormalization: `axis` must be an integer or a non-empty list of integers");
  apply_input_shape(*this, o_);
  set_autocast(false);  // inputs keep their dtype: statistics of a float32 input stay exact under mixed policies
}

void LayerNormalizationImpl::build(const Shape& s) {
  axes_ = normalize_axes("Layer '" + name() + "' (LayerNormalization)", o_.axis, s);
  Shape param;
  for (int a : axes_) param.push_back(s[a]);
  broadcast_shape_ = broadcast_shape_for(axes_, s);
  if (o_.scale)
    gamma_ = add_weight("gamma", param,
                        {.initializer = o_.gamma_initializer, .regularizer = o_.gamma_regularizer,
                         .constraint = o_.gamma_constraint, .autocast = false});
  if (o_.center)
    beta_ = add_weight("beta", param,
                       {.initializer = o_.beta_initializer, .regularizer = o_.beta_regularizer,
                        .constraint = o_.beta_constraint, .autocast = false});
  InputSpec spec{.ndim = s.rank()};
  for (int a : axes_) spec.axes[a] = s[a];
  set_input_spec({spec});
}

Tensor LayerNormalizationImpl::call(const Tensor& input, bool) {
  const Tensor x = cast_to_compute(input, statistics_dtype(compute_dtype()));
  if (const auto groups = trailing_norm_groups(x.shape(), axes_, true))
    if (auto y = ops::normalize_groups(x, o_.scale ? gamma_.value() : Tensor(), o_.center ? beta_.value() : Tensor(),
                                       *groups, o_.epsilon))
      return cast_to_compute(*y, compute_dtype());
  Tensor m = mean(x, axes_, true);
  Tensor v = var(x, axes_, true);
  Tensor inv = rsqrt(v + o_.epsilon);
  if (o_.scale) inv = inv * reshape(gamma_.value(), broadcast_shape_);
  Tensor y = (x - m) * inv;
  if (o_.center) y = y + reshape(beta_.value(), broadcast_shape_);
  return cast_to_compute(y, compute_dtype());
}

Config LayerNormalizationImpl::get_config() const {
  Config c = layer_config(*this);
  // Keras's build() keeps the axis as a list, sorted when it was given as one,
  // so a built layer's config says [-1] where an unbuilt one says -1.
  if (built() && c.contains("axis")) {
    Config& a = c["axis"];
    if (a.is_array()) std::sort(a.begin(), a.end());
    else a = Config::array({a});
  }
  return c;
}

KILN_REGISTER_LAYER(LayerNormalizationImpl, "LayerNormalization")

}  // namespace kiln::layers
