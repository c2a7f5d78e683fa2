// MaxNumBoundingBoxes as Keras 3.15 computes it (max_num_bounding_box.py).
#include "kiln/layers/max_num_bounding_boxes.h"

#include <algorithm>

#include "kiln/ops/array_ops.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

MaxNumBoundingBoxesImpl::MaxNumBoundingBoxesImpl(int64_t max_number, MaxNumBoundingBoxesOptions o)
    : RandomImageLayer(base_options(o)), max_number_(max_number), o_(std::move(o)) {
  if (max_number_ < 0)
    throw ValueError("MaxNumBoundingBoxes: the `max_number` argument should be a non-negative integer. Received: "
                     "max_number=" + std::to_string(max_number_));
  o_.data_format = check_data_format("MaxNumBoundingBoxes", o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor MaxNumBoundingBoxesImpl::call(const Tensor& x, bool /*training*/) {
  if (x.rank() != 3 && x.rank() != 4)
    throw ValueError("Layer '" + name() + "' (MaxNumBoundingBoxes): expected image tensor to have rank 3 (single "
                     "image) or 4 (batch of images). Received: data.shape=" + x.shape().to_string());
  return identity(x);
}

namespace {

// The first `keep` entries along axis 1, then `pad` entries of `value`.
Tensor truncate_and_pad(const Tensor& t, int64_t keep, int64_t pad, double value) {
  Tensor out = slice(t, {Slice(), Slice(0, keep)});
  if (pad == 0) return out;
  Shape s = t.shape();
  s[1] = pad;
  return concat({out, fill(s, value, t.dtype()).to(t.device())}, 1);
}

}  // namespace

BoundingBoxes MaxNumBoundingBoxesImpl::transform_bounding_boxes(const BoundingBoxes& in) const {
  const bool batched = in.boxes.rank() == 3;
  const Shape bs = in.boxes.shape(), ls = in.labels.shape();
  const bool boxes_ok = (bs.rank() == 3 || bs.rank() == 2) && bs[bs.rank() - 1] == 4;
  const bool labels_ok = ls.rank() == bs.rank() - 1 && (batched ? ls[0] == bs[0] && ls[1] == bs[1] : ls[0] == bs[0]);
  if (!boxes_ok || !labels_ok)
    throw ValueError("Layer '" + name() + "' (MaxNumBoundingBoxes): expected bounding_boxes with boxes of shape "
                     "(batch, num_boxes, 4) and labels of shape (batch, num_boxes) (or (num_boxes, 4) and "
                     "(num_boxes,) for one image). Received: boxes.shape=" + bs.to_string() +
                     ", labels.shape=" + ls.to_string());
  const Tensor boxes = batched ? in.boxes : expand_dims(in.boxes, 0);
  const Tensor labels = batched ? in.labels : expand_dims(in.labels, 0);
  const int64_t num = boxes.shape()[1], keep = std::min(num, max_number_), pad = max_number_ - keep;
  const auto fill_value = static_cast<double>(o_.fill_value);
  BoundingBoxes out{truncate_and_pad(boxes, keep, pad, fill_value), truncate_and_pad(labels, keep, pad, fill_value)};
  if (!batched) out = {squeeze(out.boxes, {0}), squeeze(out.labels, {0})};
  return out;
}

ImageData MaxNumBoundingBoxesImpl::call_data(const ImageData& data) const {
  if (data.images.rank() != 3 && data.images.rank() != 4)
    throw ValueError("Layer '" + name() + "' (MaxNumBoundingBoxes): expected image tensor to have rank 3 (single "
                     "image) or 4 (batch of images). Received: data.shape=" + data.images.shape().to_string());
  ImageData out{data.images, std::nullopt};
  if (data.bounding_boxes && !o_.bounding_box_format)
    throw ValueError("Layer '" + name() + "' (MaxNumBoundingBoxes): you passed an input with a 'bounding_boxes' key, "
                     "but you didn't specify a bounding box format. Pass a `bounding_box_format` argument to your "
                     "MaxNumBoundingBoxes layer, e.g. `bounding_box_format='xyxy'`.");
  if (data.bounding_boxes) out.bounding_boxes = transform_bounding_boxes(*data.bounding_boxes);
  return out;
}

Config MaxNumBoundingBoxesImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(MaxNumBoundingBoxesImpl, "MaxNumBoundingBoxes")

}  // namespace kiln::layers
