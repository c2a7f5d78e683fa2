#pragma once
// Contrast-limited adaptive histogram equalisation, as Keras 3.15 computes it (clahe.py):
// deterministic, active in training and at inference.
//   L::ContrastLimitedAdaptiveHistogramEqualization({.clip_limit = 2.0, .tile_grid_size = {4, 4}})
// Each image is scaled from value_range to (0, 255), split into a grid of tiles (padded
// symmetrically at the bottom and right up to whole tiles), and each channel of each tile
// gets a histogram of the integer parts of its values (256 bins). Bins above
// clip_limit · (tile pixels) / 256 are cut there and the excess is shared over all bins;
// the normalised cumulative histogram 255 (cdf - cdf_min) / (n - cdf_min) is each tile's
// mapping, and a pixel's output interpolates bilinearly between the mappings of the four
// tiles whose centres surround it. Images (batch, H, W, C) or one (H, W, C).
#include <cstdint>
#include <string>
#include <vector>

#include "kiln/core/fields.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Options of ContrastLimitedAdaptiveHistogramEqualization (Keras's arguments).
struct ContrastLimitedAdaptiveHistogramEqualizationOptions {
  std::vector<double> value_range = {0, 255};  ///< The (low, high) range of pixel values, as given.
  double clip_limit = 4.0;  ///< Histogram bins are cut at clip_limit · n / 256; <= 0: no clipping.
  std::vector<int64_t> tile_grid_size = {8, 8};  ///< Tiles along (height, width).
  std::string data_format = "channels_last";  ///< "channels_last" (batch, H, W, C) or "channels_first".
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(ContrastLimitedAdaptiveHistogramEqualizationOptions, value_range, clip_limit, tile_grid_size,
              data_format)
};

/// CLAHE (Keras's `ContrastLimitedAdaptiveHistogramEqualization`), in training and at
/// inference; computed in float32 and returned in the layer's dtype. No gradient flows to
/// the input (the histograms read integer parts), as in Keras. Output shape = input shape.
/// Users create it through the handle `kiln::layers::ContrastLimitedAdaptiveHistogramEqualization({...})`.
class ContrastLimitedAdaptiveHistogramEqualizationImpl : public RandomImageLayer {
 public:
  using Options = ContrastLimitedAdaptiveHistogramEqualizationOptions;  ///< The options struct the constructor takes.
  /// Throws ValueError unless value_range holds two numbers and tile_grid_size two positive integers.
  explicit ContrastLimitedAdaptiveHistogramEqualizationImpl(ContrastLimitedAdaptiveHistogramEqualizationOptions options = {});
  std::string class_name() const override { return "ContrastLimitedAdaptiveHistogramEqualization"; }
  Config get_config() const override;
  KILN_ARGS(ContrastLimitedAdaptiveHistogramEqualizationImpl)
  const Options& options() const { return o_; }  ///< The options this layer was created with.

 protected:
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  Options o_;
};

/// The handle users create and call ContrastLimitedAdaptiveHistogramEqualizationImpl through.
KILN_LAYER_HANDLE(ContrastLimitedAdaptiveHistogramEqualization);

}  // namespace kiln::layers
