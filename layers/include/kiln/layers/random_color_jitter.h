#pragma once
// RandomColorJitter (Keras 3.15's random_color_jitter.py): in training, RandomBrightness,
// RandomContrast, RandomSaturation and RandomHue in this order, each only when its factor
// is given, over the same value_range; the identity at inference.
//   L::RandomColorJitter({.brightness_factor = 0.2, .hue_factor = L::Factor(0.1, 0.2)})
// Each factor means what it means to its layer (random_color.h). As in Keras, the steps
// see the images as channels_last whatever data_format says.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of RandomColorJitter (Keras's `RandomColorJitter` arguments).
struct RandomColorJitterOptions {
  std::vector<double> value_range = {0, 255};  ///< The (low, high) range of pixel values, as each step takes it.
  std::optional<Factor> brightness_factor;  ///< RandomBrightness's factor; none: no brightness step.
  std::optional<Factor> contrast_factor;  ///< RandomContrast's factor; none: no contrast step.
  std::optional<Factor> saturation_factor;  ///< RandomSaturation's factor; none: no saturation step.
  std::optional<Factor> hue_factor;  ///< RandomHue's factor; none: no hue step.
  std::optional<uint64_t> seed;  ///< Seed of the draws; none: the global generator.
  std::string data_format = "channels_last";  ///< Written to the config; the steps read channels_last.
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(RandomColorJitterOptions, value_range, brightness_factor, contrast_factor, saturation_factor,
              hue_factor, seed, data_format)
};

/// Random colour jitter in training (Keras's `RandomColorJitter`): the brightness, contrast,
/// saturation and hue augmentations whose factors are given, in that order; the identity at
/// inference. The factors are written to the config as given. Users create it through the
/// handle `kiln::layers::RandomColorJitter({...})`.
class RandomColorJitterImpl : public RandomImageLayer {
 public:
  using Options = RandomColorJitterOptions;  ///< The options struct the constructor takes.
  /// Throws ValueError where a step's layer refuses its factor or the value_range.
  explicit RandomColorJitterImpl(RandomColorJitterOptions options = {});
  std::string class_name() const override { return "RandomColorJitter"; }
  Config get_config() const override;
  KILN_ARGS(RandomColorJitterImpl)
  const RandomColorJitterOptions& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  RandomColorJitterOptions o_;
  std::vector<LayerPtr> steps_;  // the given ones of brightness, contrast, saturation, hue
};

/// The handle users create and call RandomColorJitterImpl through.
KILN_LAYER_HANDLE(RandomColorJitter);

}  // namespace kiln::layers
