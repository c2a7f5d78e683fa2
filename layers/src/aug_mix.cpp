// AugMix as Keras 3.15 computes it (aug_mix.py): its ops are Kiln's own augmentation
// layers, built as Keras builds them.
#include "kiln/layers/aug_mix.h"

#include <algorithm>

#include "augment_ops.h"
#include "color_utils.h"
#include "kiln/ops/math_ops.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

AugMixImpl::AugMixImpl(AugMixOptions o) : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  const auto range = base_factor_range("AugMix", o_.factor, 0.0, 1.0);
  o_.factor = Factor(range.first, range.second);  // Keras keeps and writes (lower, upper)
  if (o_.num_chains < 1 || o_.chain_depth < 0)
    throw ValueError("AugMix: `num_chains` should be a positive integer and `chain_depth` a non-negative one. "
                     "Received: num_chains=" + std::to_string(o_.num_chains) +
                     ", chain_depth=" + std::to_string(o_.chain_depth));
  if (!(o_.alpha > 0))
    throw ValueError("AugMix: the `alpha` argument should be positive (the Dirichlet and Beta concentration). "
                     "Received: alpha=" + number_text(o_.alpha));
  check_color_value_range("AugMix", o_.value_range, /*sort=*/false);
  o_.data_format = check_data_format("AugMix", o_.data_format);
  names_ = {"random_shear", "random_translation", "random_rotation", "random_posterization",
            "solarization", "auto_contrast", "equalization"};
  if (o_.all_ops)
    for (const char* n : {"random_brightness", "random_color_degeneration", "random_contrast", "random_sharpness"})
      names_.push_back(n);
  const AugmentSetup setup{range, o_.value_range, o_.interpolation, o_.seed, o_.data_format, o_.dtype.compute_dtype()};
  for (std::size_t i = 0; i < names_.size(); ++i) ops_.push_back(make_augment_op(names_[i], setup, i + 1));
  apply_input_shape(*this, o_);
}

AugMixTransformation AugMixImpl::get_random_transformation() {
  AugMixTransformation t;
  t.chain_mixing_weights = dirichlet_draw(o_.num_chains, o_.alpha, next_seed(o_.seed));
  t.weight_sample = beta_draws(1, o_.alpha, o_.alpha, next_seed(o_.seed))[0];
  // Python's random.choice over the ops and None, per step of each chain.
  const auto n = static_cast<int64_t>(ops_.size());
  const std::vector<int64_t> steps = choice_draws(o_.num_chains * o_.chain_depth, n + 1, next_seed(o_.seed));
  for (int64_t c = 0; c < o_.num_chains; ++c) {
    std::vector<std::string> chain;
    for (int64_t d = 0; d < o_.chain_depth; ++d)
      if (const int64_t op = steps[static_cast<std::size_t>(c * o_.chain_depth + d)]; op < n)
        chain.push_back(names_[static_cast<std::size_t>(op)]);
    t.chain_transforms.push_back(chain);
  }
  return t;
}

Tensor AugMixImpl::transform_images(const Tensor& images, const AugMixTransformation& t) {
  if (t.chain_mixing_weights.size() != t.chain_transforms.size())
    throw ValueError("AugMix: expected one chain mixing weight per chain; received " +
                     std::to_string(t.chain_mixing_weights.size()) + " weights for " +
                     std::to_string(t.chain_transforms.size()) + " chains");
  const Tensor x = to_batch(images, "channels_last");
  Tensor mixed = scalar_like(0.0, x);
  for (std::size_t c = 0; c < t.chain_transforms.size(); ++c) {
    Tensor chain = x;
    for (const std::string& name : t.chain_transforms[c]) {
      const auto it = std::find(names_.begin(), names_.end(), name);
      if (it == names_.end())
        throw ValueError("AugMix: unknown op '" + name + "' in the transformation; expected one of its op_names()");
      chain = (*ops_[static_cast<std::size_t>(it - names_.begin())])(chain, true);
    }
    mixed = mixed + chain * scalar_like(t.chain_mixing_weights[c], x);
  }
  const Tensor m = scalar_like(t.weight_sample, x);
  Tensor y = m * x + (scalar_like(1.0, x) - m) * mixed;
  // jnp.clip(y, a, b) = minimum(maximum(y, a), b), with value_range as given.
  y = minimum(maximum(y, scalar_like(o_.value_range[0], x)), scalar_like(o_.value_range[1], x));
  return from_batch(y, images.rank(), "channels_last");
}

Tensor AugMixImpl::call(const Tensor& input, bool training) {
  // The ops read the images in data_format themselves; only a single image becomes a batch.
  if (training) return transform_images(input, get_random_transformation());
  return from_batch(to_batch(input, "channels_last"), input.rank(), "channels_last");
}

Config AugMixImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(AugMixImpl, "AugMix")

}  // namespace kiln::layers
