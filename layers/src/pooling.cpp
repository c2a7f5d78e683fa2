// Max/average pooling layers over kiln::max_pool2d / kiln::avg_pool2d.
#include "kiln/layers/pooling.h"

#include "kiln/ops/array_ops.h"
#include "kiln/ops/nn_ops.h"
#include "layer_utils.h"

namespace kiln::layers {

using namespace detail;

namespace {
std::string pool_name(bool is_max, int rank) {
  return std::string(is_max ? "MaxPooling" : "AveragePooling") + std::to_string(rank) + "D";
}
}  // namespace

// ---- 2D ----
Pooling2DImpl::Pooling2DImpl(Size2 pool_size, Pooling2DOptions o, bool is_max)
    : Layer(base_options(o)), pool_size_(pool_size), o_(std::move(o)), is_max_(is_max) {
  const std::string cls = pool_name(is_max, 2);
  if (!pool_size_.given())
    throw ValueError(cls + ": `pool_size` must be positive, got (" + std::to_string(pool_size_.first) + ", " +
                     std::to_string(pool_size_.second) + ")");
  if (o_.strides.first == 0 && o_.strides.second == 0) o_.strides = pool_size_;
  if (!o_.strides.given()) throw ValueError(cls + ": `strides` must be positive");
  o_.padding = check_padding(cls, o_.padding, {"valid", "same"});
  o_.data_format = check_data_format(cls, o_.data_format);
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = 4}});
}

Tensor Pooling2DImpl::call(const Tensor& input, bool) {
  const bool cf = o_.data_format == "channels_first";
  Tensor x = cast_input(input, dtype());
  if (cf) x = transpose(x, {0, 2, 3, 1});
  Pool2DOptions po{pool_size_.array(), o_.strides.array(), o_.padding};
  Tensor y = is_max_ ? max_pool2d(x, po) : avg_pool2d(x, po);
  if (cf) y = transpose(y, {0, 3, 1, 2});
  return y;
}

Shape Pooling2DImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != 4)
    throw ShapeError("Layer '" + name() + "' (" + class_name() + ") expects inputs of rank 4, but received input with shape " +
                     s.to_string());
  const bool cf = o_.data_format == "channels_first";
  const int64_t h = s[cf ? 2 : 1], w = s[cf ? 3 : 2];
  const int64_t oh = conv_output_length(h, pool_size_.first, o_.padding, o_.strides.first, 1);
  const int64_t ow = conv_output_length(w, pool_size_.second, o_.padding, o_.strides.second, 1);
  if ((h >= 0 && oh <= 0) || (w >= 0 && ow <= 0))
    throw ValueError("Layer '" + name() + "' (" + class_name() + "): computed output size would be negative or zero. Received input shape " +
                     s.to_string() + " with pool_size (" + std::to_string(pool_size_.first) + ", " +
                     std::to_string(pool_size_.second) + ") and padding \"" + o_.padding + "\"");
  return cf ? Shape{s[0], s[1], oh, ow} : Shape{s[0], oh, ow, s[3]};
}

Config Pooling2DImpl::get_config() const {
  Config c = base_config();
  c["pool_size"] = size2_json(pool_size_);
  c["padding"] = o_.padding;
  c["strides"] = size2_json(o_.strides);
  c["data_format"] = o_.data_format;
  add_declared_shape(*this, c);
  return c;
}

Pooling2DOptions Pooling2DImpl::options_from_config(const Config& config, const std::string& cls, Size2& pool_size) {
  ConfigReader r(cls, config);
  Pooling2DOptions o;
  r.base(o);
  pool_size = r.size2("pool_size", 2);
  o.strides = r.size2("strides", Size2());
  o.padding = r.string("padding", "valid");
  o.data_format = r.string("data_format", "channels_last");
  return o;
}

std::shared_ptr<MaxPooling2DImpl> MaxPooling2DImpl::from_config(const Config& c) {
  Size2 p;
  auto o = options_from_config(c, "MaxPooling2D", p);
  return std::make_shared<MaxPooling2DImpl>(p, std::move(o));
}
std::shared_ptr<AveragePooling2DImpl> AveragePooling2DImpl::from_config(const Config& c) {
  Size2 p;
  auto o = options_from_config(c, "AveragePooling2D", p);
  return std::make_shared<AveragePooling2DImpl>(p, std::move(o));
}

// ---- 1D ----
Pooling1DImpl::Pooling1DImpl(int pool_size, Pooling1DOptions o, bool is_max)
    : Layer(base_options(o)), pool_size_(pool_size), o_(std::move(o)), is_max_(is_max) {
  const std::string cls = pool_name(is_max, 1);
  if (pool_size_ <= 0) throw ValueError(cls + ": `pool_size` must be positive, got " + std::to_string(pool_size_));
  if (o_.strides == 0) o_.strides = pool_size_;
  if (o_.strides < 0) throw ValueError(cls + ": `strides` must be positive, got " + std::to_string(o_.strides));
  o_.padding = check_padding(cls, o_.padding, {"valid", "same"});
  o_.data_format = check_data_format(cls, o_.data_format);
  apply_input_shape(*this, o_);
  set_input_spec({InputSpec{.ndim = 3}});
}

Tensor Pooling1DImpl::call(const Tensor& input, bool) {
  const bool cf = o_.data_format == "channels_first";
  Tensor x = cast_input(input, dtype());
  if (cf) x = transpose(x, {0, 2, 1});
  Pool2DOptions po{{1, pool_size_}, {1, o_.strides}, o_.padding};
  x = expand_dims(x, 1);
  Tensor y = squeeze(is_max_ ? max_pool2d(x, po) : avg_pool2d(x, po), {1});
  if (cf) y = transpose(y, {0, 2, 1});
  return y;
}

Shape Pooling1DImpl::compute_output_shape(const Shape& s) {
  if (s.rank() != 3)
    throw ShapeError("Layer '" + name() + "' (" + class_name() + ") expects inputs of rank 3, but received input with shape " +
                     s.to_string());
  const bool cf = o_.data_format == "channels_first";
  const int64_t steps = s[cf ? 2 : 1];
  const int64_t out = conv_output_length(steps, pool_size_, o_.padding, o_.strides, 1);
  if (steps >= 0 && out <= 0)
    throw ValueError("Layer '" + name() + "' (" + class_name() + "): computed output size would be negative or zero. Received input shape " +
                     s.to_string() + " with pool_size " + std::to_string(pool_size_));
  return cf ? Shape{s[0], s[1], out} : Shape{s[0], out, s[2]};
}

Config Pooling1DImpl::get_config() const {
  Config c = base_config();
  c["pool_size"] = Config::array({pool_size_});
  c["padding"] = o_.padding;
  c["strides"] = Config::array({o_.strides});
  c["data_format"] = o_.data_format;
  add_declared_shape(*this, c);
  return c;
}

Pooling1DOptions Pooling1DImpl::options_from_config(const Config& config, const std::string& cls, int& pool_size) {
  ConfigReader r(cls, config);
  Pooling1DOptions o;
  r.base(o);
  // Keras 2 Pooling1D used pool_length/stride.
  pool_size = static_cast<int>(r.int_or_first("pool_size", r.int_or_first("pool_length", 2)));
  o.strides = static_cast<int>(r.int_or_first("strides", r.int_or_first("stride", 0)));
  o.padding = r.string("padding", "valid");
  o.data_format = r.string("data_format", "channels_last");
  return o;
}

std::shared_ptr<MaxPooling1DImpl> MaxPooling1DImpl::from_config(const Config& c) {
  int p = 2;
  auto o = options_from_config(c, "MaxPooling1D", p);
  return std::make_shared<MaxPooling1DImpl>(p, std::move(o));
}
std::shared_ptr<AveragePooling1DImpl> AveragePooling1DImpl::from_config(const Config& c) {
  int p = 2;
  auto o = options_from_config(c, "AveragePooling1D", p);
  return std::make_shared<AveragePooling1DImpl>(p, std::move(o));
}

}  // namespace kiln::layers
