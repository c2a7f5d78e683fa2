#pragma once
// MaxNumBoundingBoxes (Keras 3.15's max_num_bounding_box.py): pads or truncates a batch's
// bounding boxes to `max_number` per image; images pass unchanged.
//   auto layer = L::MaxNumBoundingBoxes(10, {.bounding_box_format = "xyxy"});
//   L::ImageData out = layer->call_data({images, L::BoundingBoxes{boxes, labels}});
// Keras passes {"images": ..., "bounding_boxes": {"boxes": ..., "labels": ...}}; Kiln's
// ImageData / BoundingBoxes structs hold the same tensors. Called on a tensor (as in a
// model), the layer returns the images as they are.
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/fields.h"
#include "kiln/layers/random_image_layer.h"
#include "kiln/nn/layer_class.h"

namespace kiln::layers {

/// Keras's `bounding_boxes` dict: boxes (batch, N, 4) and labels (batch, N), or (N, 4) and
/// (N,) for one image; any numeric dtype.
struct BoundingBoxes {
  Tensor boxes;   ///< (batch, N, 4) or (N, 4).
  Tensor labels;  ///< (batch, N) or (N,).
};

/// Keras's data dict of the image preprocessing layers: {"images", "bounding_boxes"}.
struct ImageData {
  Tensor images;  ///< (batch, H, W, C) or one (H, W, C) (channels_first: C before H and W).
  std::optional<BoundingBoxes> bounding_boxes;  ///< None: images only.
};

/// Options of MaxNumBoundingBoxes (Keras's arguments after max_number).
struct MaxNumBoundingBoxesOptions {
  /// The value of padded boxes and labels. Keras 3.15 does not write it to its config
  /// (so its round trip loses it); Kiln writes it, and Keras reads it back.
  int64_t fill_value = -1;
  std::string data_format = "channels_last";  ///< Written to the config as Keras does; images are not touched.
  /// The boxes' format ("xyxy", ...); as in Keras, call_data refuses bounding boxes without one.
  std::optional<std::string> bounding_box_format;
  KILN_LAYER_BASE_OPTIONS
  KILN_FIELDS(MaxNumBoundingBoxesOptions, fill_value, data_format, bounding_box_format)
};

/// MaxNumBoundingBoxes (Keras's `MaxNumBoundingBoxes`): boxes[:, :max_number] and
/// labels[:, :max_number], padded with fill_value up to max_number, in training and at
/// inference; images unchanged. Users create it through the handle
/// `kiln::layers::MaxNumBoundingBoxes(max_number, {...})`.
class MaxNumBoundingBoxesImpl : public RandomImageLayer {
 public:
  using Options = MaxNumBoundingBoxesOptions;  ///< The options struct the constructor takes.
  /// Throws ValueError for a negative max_number.
  explicit MaxNumBoundingBoxesImpl(int64_t max_number, MaxNumBoundingBoxesOptions options = {});
  std::string class_name() const override { return "MaxNumBoundingBoxes"; }
  Config get_config() const override;
  KILN_ARGS(MaxNumBoundingBoxesImpl, max_number_)
  const MaxNumBoundingBoxesOptions& options() const { return o_; }  ///< The options this layer was created with.
  int64_t max_number() const { return max_number_; }  ///< Boxes per image in the output.

  /// The boxes and labels with exactly max_number entries per image. Throws ValueError
  /// unless boxes are (batch, N, 4) and labels (batch, N) (or unbatched (N, 4) and (N,)).
  BoundingBoxes transform_bounding_boxes(const BoundingBoxes& bounding_boxes) const;
  /// Keras's call on a data dict: the images unchanged, the bounding boxes transformed.
  /// Throws ValueError for bounding boxes when no bounding_box_format was given (Keras's rule).
  ImageData call_data(const ImageData& data) const;

 protected:
  /// The images as they are (rank 3 or 4).
  Tensor call(const Tensor& x, bool training) override;
  using Layer::call;

 private:
  int64_t max_number_;
  MaxNumBoundingBoxesOptions o_;
};

/// The handle users create and call MaxNumBoundingBoxesImpl through.
KILN_LAYER_HANDLE(MaxNumBoundingBoxes);

}  // namespace kiln::layers
