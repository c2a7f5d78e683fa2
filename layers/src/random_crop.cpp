// RandomCrop: Keras 3's window choice (random_crop.py), with its fixed window at
// inference too.
#include "kiln/layers/random_crop.h"

#include <algorithm>

#include "image_resize.h"
#include "random_image_utils.h"

namespace kiln::layers {

using namespace detail;

RandomCropImpl::RandomCropImpl(int64_t height, int64_t width, RandomCropOptions o)
    : RandomImageLayer(base_options(o)), height_(height), width_(width), o_(std::move(o)) {
  if (height_ <= 0 || width_ <= 0)
    throw ValueError("RandomCrop: `height` and `width` must be positive. Received: height=" + std::to_string(height_) +
                     ", width=" + std::to_string(width_));
  o_.data_format = check_data_format("RandomCrop", o_.data_format);
  apply_input_shape(*this, o_);
}

Shape RandomCropImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != 3 && s.rank() != 4)
    throw ShapeError("Layer '" + name() + "' (RandomCrop) expects inputs of rank 3 or 4, but received input with shape " +
                     s.to_string());
  Shape out = s;
  const bool cf = o_.data_format == "channels_first";
  out[cf ? -2 : -3] = height_;
  out[cf ? -1 : -2] = width_;
  return out;
}

Tensor RandomCropImpl::call(const Tensor& input, bool training) {
  Tensor x = to_batch(input, o_.data_format);  // (B, H, W, C)
  const int64_t H = x.shape()[1], W = x.shape()[2];
  int64_t h_start = 0, w_start = 0;
  if (training && H > height_ && W > width_) {
    h_start = static_cast<int64_t>(uniform_draws(1, 0.0, static_cast<double>(H - height_ + 1), next_seed(o_.seed))[0]);
    w_start = static_cast<int64_t>(uniform_draws(1, 0.0, static_cast<double>(W - width_ + 1), next_seed(o_.seed))[0]);
  } else {
    const int64_t ch = std::max<int64_t>(std::min<int64_t>(H, static_cast<int64_t>(static_cast<double>(W * height_) / width_)), 1);
    const int64_t cw = std::max<int64_t>(std::min<int64_t>(W, static_cast<int64_t>(static_cast<double>(H * width_) / height_)), 1);
    h_start = static_cast<int64_t>(static_cast<double>(H - ch) / 2);
    w_start = static_cast<int64_t>(static_cast<double>(W - cw) / 2);
  }
  // Python's slice [start:start + size]: clipped to the image.
  x = crop_axis(x, 1, h_start, std::min(height_, H - h_start));
  x = crop_axis(x, 2, w_start, std::min(width_, W - w_start));
  x = resize_axis_linear(resize_axis_linear(x, 1, height_), 2, width_);  // no-ops when the window was full size
  return from_batch(x, input.rank(), o_.data_format);
}

Config RandomCropImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(RandomCropImpl, "RandomCrop")

}  // namespace kiln::layers
