// RandAugment as Keras 3.15 composes it (rand_augment.py): its ops are Kiln's own
// augmentation layers, built as Keras builds them.
#include "kiln/layers/rand_augment.h"

#include "augment_ops.h"
#include "color_utils.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

const std::vector<std::string>& RandAugmentImpl::op_names() {
  static const std::vector<std::string> names = {
      "random_shear",     "random_translation",  "random_rotation", "random_brightness",
      "random_color_degeneration", "random_contrast", "random_sharpness", "random_posterization",
      "solarization",     "auto_contrast",       "equalization"};
  return names;
}

RandAugmentImpl::RandAugmentImpl(RandAugmentOptions o) : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  const auto range = base_factor_range("RandAugment", o_.factor, 0.0, 1.0);
  o_.factor = Factor(range.first, range.second);  // Keras keeps and writes (lower, upper)
  if (o_.num_ops < 0)
    throw ValueError("RandAugment: the `num_ops` argument should be a non-negative integer. Received: num_ops=" +
                     std::to_string(o_.num_ops));
  check_color_value_range("RandAugment", o_.value_range, /*sort=*/false);
  o_.data_format = check_data_format("RandAugment", o_.data_format);
  const AugmentSetup setup{range, o_.value_range, o_.interpolation, o_.seed, o_.data_format, o_.dtype.compute_dtype()};
  for (std::size_t i = 0; i < op_names().size(); ++i) ops_.push_back(make_augment_op(op_names()[i], setup, i + 1));
  apply_input_shape(*this, o_);
}

std::vector<int64_t> RandAugmentImpl::get_random_transformation() {
  return choice_draws(o_.num_ops, static_cast<int64_t>(ops_.size()), next_seed(o_.seed));
}

Tensor RandAugmentImpl::transform_images(const Tensor& images, const std::vector<int64_t>& layer_idxes) {
  // The ops read the images in data_format themselves; only a single image becomes a batch.
  Tensor x = to_batch(images, "channels_last");
  for (int64_t op : layer_idxes) {
    if (op < 0 || op >= static_cast<int64_t>(ops_.size()))
      throw ValueError("RandAugment: an op index should lie in [0, " + std::to_string(ops_.size()) +
                       "). Received: " + std::to_string(op));
    x = (*ops_[static_cast<std::size_t>(op)])(x, true);
  }
  return from_batch(x, images.rank(), "channels_last");
}

Tensor RandAugmentImpl::call(const Tensor& input, bool training) {
  if (training) return transform_images(input, get_random_transformation());
  return from_batch(to_batch(input, "channels_last"), input.rank(), "channels_last");
}

Config RandAugmentImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(RandAugmentImpl, "RandAugment")

}  // namespace kiln::layers
