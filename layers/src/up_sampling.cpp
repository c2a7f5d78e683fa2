// UpSampling2D (nearest: repeats; bilinear: jax.image.resize's weights) and UpSampling3D.
#include "kiln/layers/up_sampling.h"

#include "config_fields.h"
#include "image_resize.h"

namespace kiln::layers {

using namespace detail;

namespace {
Shape scaled(const std::string& who, const Shape& s, std::vector<int> factors, bool channels_first) {
  const int64_t rank = static_cast<int64_t>(factors.size()) + 2;
  if (s.rank() != rank)
    throw ShapeError(who + " expects inputs of rank " + std::to_string(rank) + ", but received shape " + s.to_string());
  Shape out = s;
  for (std::size_t i = 0; i < factors.size(); ++i) {
    const int64_t a = static_cast<int64_t>(i) + (channels_first ? 2 : 1);
    if (out[a] >= 0) out[a] *= factors[i];
  }
  return out;
}
}  // namespace

// ---- UpSampling2D ----
UpSampling2DImpl::UpSampling2DImpl(Size2 size, UpSampling2DOptions o) : Layer(base_options(o)), size_(size), o_(std::move(o)) {
  if (!size_.given()) throw ValueError("UpSampling2D: `size` must be positive integers, got (" + std::to_string(size_.first) + ", " + std::to_string(size_.second) + ")");
  o_.data_format = check_data_format("UpSampling2D", o_.data_format);
  if (o_.interpolation != "nearest" && o_.interpolation != "bilinear")
    throw ValueError("UpSampling2D: `interpolation` argument should be one of: \"nearest\", \"bilinear\" (Kiln has these two of Keras's). Received: \"" +
                     o_.interpolation + "\".");
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = 4}});
}

Tensor UpSampling2DImpl::call(const Tensor& input, bool) {
  Tensor x = cast_input(input, compute_dtype());
  const int h = o_.data_format == "channels_first" ? 2 : 1;
  if (o_.interpolation == "nearest") return repeat_axis(repeat_axis(x, h, size_.first), h + 1, size_.second);
  Tensor y = resize_axis_linear(x, h, x.shape()[h] * size_.first);
  return resize_axis_linear(y, h + 1, x.shape()[h + 1] * size_.second);
}

Shape UpSampling2DImpl::compute_output_shape(const Shape& s) {
  return scaled("Layer '" + name() + "' (UpSampling2D)", s, {size_.first, size_.second}, o_.data_format == "channels_first");
}

Config UpSampling2DImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(UpSampling2DImpl, "UpSampling2D")

// ---- UpSampling3D ----
UpSampling3DImpl::UpSampling3DImpl(std::vector<int> size, UpSampling3DOptions o)
    : Layer(base_options(o)), size_(std::move(size)), o_(std::move(o)) {
  if (size_.size() == 1) size_ = {size_[0], size_[0], size_[0]};  // Keras: an int is every axis
  if (size_.size() != 3 || size_[0] <= 0 || size_[1] <= 0 || size_[2] <= 0)
    throw ValueError("UpSampling3D: `size` must be a positive int or three positive ints");
  o_.data_format = check_data_format("UpSampling3D", o_.data_format);
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = 5}});
}

Tensor UpSampling3DImpl::call(const Tensor& input, bool) {
  Tensor x = cast_input(input, compute_dtype());
  const int d = o_.data_format == "channels_first" ? 2 : 1;
  for (int i = 0; i < 3; ++i) x = repeat_axis(x, d + i, size_[i]);
  return x;
}

Shape UpSampling3DImpl::compute_output_shape(const Shape& s) {
  return scaled("Layer '" + name() + "' (UpSampling3D)", s, size_, o_.data_format == "channels_first");
}

Config UpSampling3DImpl::get_config() const { return layer_config(*this); }

KILN_REGISTER_LAYER(UpSampling3DImpl, "UpSampling3D")

}  // namespace kiln::layers
