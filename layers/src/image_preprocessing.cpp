// Rescaling, Resizing and CenterCrop (Keras 3's JAX-backend image.resize).
#include "kiln/layers/image_preprocessing.h"

#include <algorithm>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/math_ops.h"
#include "config_fields.h"
#include "image_resize.h"

namespace kiln::layers {

using namespace detail;

namespace {

struct ImageAxes {
  int h, w;
};
ImageAxes image_axes(const std::string& data_format) {
  return data_format == "channels_first" ? ImageAxes{2, 3} : ImageAxes{1, 2};
}

Shape resized_shape(const std::string& who, const Shape& s, const std::string& data_format, int64_t h, int64_t w) {
  if (s.rank() != 4)
    throw ShapeError(who + " expects a batch of images of rank 4, but received input with shape " + s.to_string());
  Shape out = s;
  const ImageAxes a = image_axes(data_format);
  out[a.h] = h;
  out[a.w] = w;
  return out;
}

// The largest centred crop with the target's aspect ratio (Keras's integer arithmetic).
Tensor crop_to_aspect(const Tensor& x, ImageAxes a, int64_t th, int64_t tw) {
  const int64_t height = x.shape()[a.h], width = x.shape()[a.w];
  const int64_t ch = std::max<int64_t>(std::min<int64_t>(height, static_cast<int64_t>(static_cast<double>(width * th) / tw)), 1);
  const int64_t cw = std::max<int64_t>(std::min<int64_t>(width, static_cast<int64_t>(static_cast<double>(height * tw) / th)), 1);
  Tensor y = crop_axis(x, a.h, static_cast<int64_t>(static_cast<double>(height - ch) / 2), ch);
  return crop_axis(y, a.w, static_cast<int64_t>(static_cast<double>(width - cw) / 2), cw);
}

// Pads both sides of one axis with fill_value to reach the target's aspect ratio (as Keras: the
// same amount on each side, height first).
Tensor pad_to_aspect(const Tensor& x, ImageAxes a, int64_t th, int64_t tw, double fill_value) {
  const int64_t height = x.shape()[a.h], width = x.shape()[a.w];
  const int64_t ph = std::max<int64_t>(height, static_cast<int64_t>(static_cast<double>(width * th) / tw));
  const int64_t pw = std::max<int64_t>(width, static_cast<int64_t>(static_cast<double>(height * tw) / th));
  const int64_t hstart = static_cast<int64_t>(static_cast<double>(ph - height) / 2);
  const int64_t wstart = static_cast<int64_t>(static_cast<double>(pw - width) / 2);
  const int axis = hstart > 0 ? a.h : a.w;
  const int64_t n = hstart > 0 ? hstart : wstart;
  if (n <= 0) return x;
  Shape bs = x.shape();
  bs[axis] = n;
  Tensor block = fill(bs, fill_value, x.dtype());
  return concat({block, x, block}, axis);
}

Tensor resize_image(const Tensor& x, ImageAxes a, int64_t h, int64_t w, bool nearest) {
  if (nearest) return resize_axis_nearest(resize_axis_nearest(x, a.h, h), a.w, w);
  return resize_axis_linear(resize_axis_linear(x, a.h, h), a.w, w);
}

}  // namespace

// ---- Rescaling ----
RescalingImpl::RescalingImpl(double scale, RescalingOptions o) : Layer(base_options(o)), scale_(scale), o_(std::move(o)) {
  apply_input_shape(*this, o_);
}
Tensor RescalingImpl::call(const Tensor& input, bool) { return cast_to_compute(input, compute_dtype()) * scale_ + o_.offset; }
Config RescalingImpl::get_config() const { return layer_config(*this); }
KILN_REGISTER_LAYER(RescalingImpl, "Rescaling")

// ---- Resizing ----
ResizingImpl::ResizingImpl(int64_t height, int64_t width, ResizingOptions o)
    : Layer(base_options(o)), height_(height), width_(width), o_(std::move(o)) {
  if (height_ <= 0 || width_ <= 0) throw ValueError("Resizing: `height` and `width` must be positive integers");
  if (o_.interpolation != "bilinear" && o_.interpolation != "nearest")
    throw ValueError("Resizing: invalid value for argument `interpolation`. Kiln has \"bilinear\" and \"nearest\". Received: interpolation=" +
                     o_.interpolation);
  if (o_.fill_mode != "constant")
    throw ValueError("Resizing: invalid value for argument `fill_mode`. Only `'constant'` is supported. Received: fill_mode=" + o_.fill_mode);
  if (o_.crop_to_aspect_ratio && o_.pad_to_aspect_ratio)
    throw ValueError("Resizing: only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`.");
  if (o_.antialias) throw ValueError("Resizing: antialias=true is not supported in Kiln");
  o_.data_format = check_data_format("Resizing", o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor ResizingImpl::call(const Tensor& input, bool) {
  Tensor x = cast_to_compute(input, compute_dtype());
  compute_output_shape(x.shape());
  const ImageAxes a = image_axes(o_.data_format);
  if (o_.crop_to_aspect_ratio) x = crop_to_aspect(x, a, height_, width_);
  else if (o_.pad_to_aspect_ratio) x = pad_to_aspect(x, a, height_, width_, o_.fill_value);
  return resize_image(x, a, height_, width_, o_.interpolation == "nearest");
}

Shape ResizingImpl::compute_output_shape(const Shape& s) {
  return resized_shape("Layer '" + name() + "' (Resizing)", s, o_.data_format, height_, width_);
}
Config ResizingImpl::get_config() const { return layer_config(*this); }
KILN_REGISTER_LAYER(ResizingImpl, "Resizing")

// ---- CenterCrop ----
CenterCropImpl::CenterCropImpl(int64_t height, int64_t width, CenterCropOptions o)
    : Layer(base_options(o)), height_(height), width_(width), o_(std::move(o)) {
  if (height_ <= 0 || width_ <= 0) throw ValueError("CenterCrop: `height` and `width` must be positive integers");
  o_.data_format = check_data_format("CenterCrop", o_.data_format);
  apply_input_shape(*this, o_);
}

Tensor CenterCropImpl::call(const Tensor& input, bool) {
  Tensor x = cast_to_compute(input, compute_dtype());
  compute_output_shape(x.shape());
  const ImageAxes a = image_axes(o_.data_format);
  const int64_t dh = x.shape()[a.h] - height_, dw = x.shape()[a.w] - width_;
  if (dh >= 0 && dw >= 0) return crop_axis(crop_axis(x, a.h, dh / 2, height_), a.w, dw / 2, width_);
  // Keras's smart_resize: too small an input is cropped to the aspect ratio, then resized.
  return resize_image(crop_to_aspect(x, a, height_, width_), a, height_, width_, false);
}

Shape CenterCropImpl::compute_output_shape(const Shape& s) {
  return resized_shape("Layer '" + name() + "' (CenterCrop)", s, o_.data_format, height_, width_);
}
Config CenterCropImpl::get_config() const { return layer_config(*this); }
KILN_REGISTER_LAYER(CenterCropImpl, "CenterCrop")

}  // namespace kiln::layers
