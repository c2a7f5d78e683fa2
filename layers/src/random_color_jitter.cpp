// RandomColorJitter as Keras 3.15 composes it (random_color_jitter.py): its steps are
// the RandomBrightness, RandomContrast, RandomSaturation and RandomHue layers.
#include "kiln/layers/random_color_jitter.h"

#include "color_utils.h"
#include "kiln/layers/random_color.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

RandomColorJitterImpl::RandomColorJitterImpl(RandomColorJitterOptions o) : RandomImageLayer(base_options(o)), o_(std::move(o)) {
  std::vector<double> range = o_.value_range;
  check_color_value_range("RandomColorJitter", range, /*sort=*/false);
  o_.data_format = check_data_format("RandomColorJitter", o_.data_format);
  uint64_t step = 0;
  // Each step draws from its own sequence: a seeded jitter gives step i the seed + i.
  auto step_options = [&] {
    RandomColorOptions s;
    s.value_range = o_.value_range;
    if (o_.seed) s.seed = *o_.seed + step;
    ++step;
    s.dtype = o_.dtype.compute_dtype();
    return s;
  };
  if (o_.brightness_factor) steps_.push_back(RandomBrightness(*o_.brightness_factor, step_options()).ptr());
  if (o_.contrast_factor) steps_.push_back(RandomContrast(*o_.contrast_factor, step_options()).ptr());
  if (o_.saturation_factor) steps_.push_back(RandomSaturation(*o_.saturation_factor, step_options()).ptr());
  if (o_.hue_factor) steps_.push_back(RandomHue(*o_.hue_factor, step_options()).ptr());
  apply_input_shape(*this, o_);
}

Tensor RandomColorJitterImpl::call(const Tensor& input, bool training) {
  // Keras hands the steps the images as they come, so channels_first images are read as
  // channels_last by them.
  Tensor x = to_batch(input, "channels_last");
  if (training)
    for (const auto& s : steps_) x = (*s)(x, true);
  return from_batch(x, input.rank(), "channels_last");
}

Config RandomColorJitterImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(RandomColorJitterImpl, "RandomColorJitter")

}  // namespace kiln::layers
