// keras.utils.load_img, img_to_array, array_to_img, save_img and smart_resize.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "kiln/core/device.h"
#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/utils/image_utils.h"
#include "utils/image_codec.h"
#include "utils/image_pil_resize.h"
#include "utils/image_resize.h"

namespace kiln::utils {
namespace {

int64_t color_mode_channels(const std::string& color_mode) {
  if (color_mode == "grayscale") return 1;
  if (color_mode == "rgb") return 3;
  if (color_mode == "rgba") return 4;
  throw ValueError("color_mode must be \"grayscale\", \"rgb\", or \"rgba\". Received: color_mode=" + color_mode);
}

void check_data_format(const std::string& data_format, const std::string& op) {
  if (data_format != "channels_last" && data_format != "channels_first")
    throw ValueError(op + ": The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                          "Received: data_format=" + data_format);
}

Tensor pixels_tensor(image_codec::Pixels im) {
  return Tensor(im.data, Shape({im.height, im.width, im.channels}));
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

}  // namespace

Tensor load_img(const std::string& path, const LoadImgOptions& options) {
  const int64_t channels = color_mode_channels(options.color_mode);
  image_codec::Pixels im = image_codec::decode_image(image_codec::read_file(path), channels, path,
                                                           image_codec::Rules::pil);
  if (!options.target_size) return pixels_tensor(std::move(im));
  const auto [height, width] = *options.target_size;
  if (height <= 0 || width <= 0)
    throw ValueError("load_img: target_size must be positive; received (" + std::to_string(height) + ", " +
                     std::to_string(width) + ")");
  if (height == im.height && width == im.width) return pixels_tensor(std::move(im));
  if (!image_pil_resize::is_pil_filter(options.interpolation))
    throw ValueError("Invalid interpolation method " + options.interpolation +
                     " specified. Supported methods are nearest, bilinear, bicubic, hamming, box, lanczos");
  std::array<double, 4> box{0, 0, double(im.width), double(im.height)};
  if (options.keep_aspect_ratio) {
    const int64_t crop_h = std::min(im.height, (im.width * height) / width);
    const int64_t crop_w = std::min(im.width, (im.height * width) / height);
    const int64_t top = (im.height - crop_h) / 2, left = (im.width - crop_w) / 2;
    box = {double(left), double(top), double(left + crop_w), double(top + crop_h)};
  }
  return pixels_tensor(image_pil_resize::resize(im, height, width, box, options.interpolation));
}

Tensor img_to_array(const Tensor& img, const std::string& data_format, DType dtype) {
  check_data_format(data_format, "img_to_array");
  if (!img.defined() || (img.rank() != 2 && img.rank() != 3))
    throw ValueError("Unsupported image shape: " + (img.defined() ? img.shape().to_string() : std::string("(undefined)")));
  Tensor x = cast(img.to(Device::cpu()), dtype);
  const auto& d = x.shape().dims();
  if (x.rank() == 2)
    return reshape(x, data_format == "channels_first" ? Shape({1, d[0], d[1]}) : Shape({d[0], d[1], 1}));
  return data_format == "channels_first" ? transpose(x, {2, 0, 1}) : x;
}

Tensor array_to_img(const Tensor& x, const std::string& data_format, bool scale) {
  check_data_format(data_format, "array_to_img");
  if (!x.defined() || x.rank() != 3)
    throw ValueError("Expected image array to have rank 3 (single image). Got array with shape: " +
                     (x.defined() ? x.shape().to_string() : std::string("(undefined)")));
  Tensor hwc = cast(x.to(Device::cpu()), DType::float32);
  if (data_format == "channels_first") hwc = transpose(hwc, {1, 2, 0});
  const auto& d = hwc.shape().dims();
  if (d[2] != 1 && d[2] != 3 && d[2] != 4) throw ValueError("Unsupported channel number: " + std::to_string(d[2]));
  std::vector<float> v = hwc.to_vector<float>();
  if (scale && !v.empty()) {
    const float lo = *std::min_element(v.begin(), v.end());
    for (float& e : v) e -= lo;
    const float hi = *std::max_element(v.begin(), v.end());
    for (float& e : v) e = (hi != 0 ? e / hi : e) * 255.0f;
  }
  std::vector<uint8_t> bytes(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!(v[i] >= 0.0f && v[i] < 256.0f))
      throw ValueError("array_to_img: with scale=false the values must lie in [0, 255] to fit uint8 pixels; "
                       "received " + std::to_string(v[i]) + " in an array of shape " + x.shape().to_string());
    bytes[i] = static_cast<uint8_t>(v[i]);  // truncation, as astype("uint8")
  }
  return Tensor(bytes, Shape({d[0], d[1], d[2]}));
}

void save_img(const std::string& path, const Tensor& x, const SaveImgOptions& options) {
  std::string format = options.file_format.value_or("");
  if (!options.file_format) {
    const auto dot = path.find_last_of('.'), slash = path.find_last_of('/');
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) format = path.substr(dot + 1);
  }
  format = lower(format);
  if (format == "jpg") format = "jpeg";
  if (format != "png" && format != "jpeg" && format != "bmp")
    throw ValueError("save_img: cannot tell the file format of '" + path + "' (received file_format \"" + format +
                     "\"); Kiln writes \"png\", \"jpeg\" (\"jpg\") and \"bmp\"");
  const Tensor img = array_to_img(x, options.data_format, options.scale);
  const auto& d = img.shape().dims();
  image_codec::Pixels pixels{d[0], d[1], d[2], img.to_vector<uint8_t>()};
  std::vector<uint8_t> bytes;
  if (format == "png") {
    bytes = image_codec::encode_png(pixels, path);
  } else if (format == "jpeg") {
    if (pixels.channels == 4) pixels = image_codec::convert_channels(std::move(pixels), 3);
    bytes = image_codec::encode_jpeg(pixels, options.quality, path);
  } else {
    bytes = image_codec::encode_bmp(pixels);
  }
  image_codec::write_file(path, bytes);
}

Tensor smart_resize(const Tensor& x, std::array<int64_t, 2> size, const std::string& interpolation,
                    const std::string& data_format) {
  check_data_format(data_format, "smart_resize");
  if (!x.defined() || x.rank() < 3 || x.rank() > 4)
    throw ValueError("Expected an image array with shape `(height, width, channels)`, or `(batch_size, height, width, "
                     "channels)`, but got input with incorrect rank, of shape " +
                     (x.defined() ? x.shape().to_string() : std::string("(undefined)")));
  if (size[0] <= 0 || size[1] <= 0)
    throw ValueError("smart_resize: size must be positive; received (" + std::to_string(size[0]) + ", " +
                     std::to_string(size[1]) + ")");
  const bool batched = x.rank() == 4, first = data_format == "channels_first";
  Tensor t = cast(x.to(Device::cpu()), DType::float32);
  if (!batched) t = expand_dims(t, 0);
  if (first) t = transpose(t, {0, 2, 3, 1});
  const auto d = t.shape().dims();
  const std::vector<float> v = t.to_vector<float>();
  std::vector<float> out;
  const int64_t per = d[1] * d[2] * d[3];
  for (int64_t n = 0; n < d[0]; ++n) {
    image_resize::FloatImage im{d[1], d[2], d[3], std::vector<float>(v.begin() + n * per, v.begin() + (n + 1) * per)};
    const auto r = image_resize::smart_resize(im, size[0], size[1], interpolation);
    out.insert(out.end(), r.data.begin(), r.data.end());
  }
  Tensor y(out, Shape({d[0], size[0], size[1], d[3]}));
  if (first) y = transpose(y, {0, 3, 1, 2});
  return batched ? y : reshape(y, Shape(std::vector<int64_t>(y.shape().dims().begin() + 1, y.shape().dims().end())));
}

}  // namespace kiln::utils
