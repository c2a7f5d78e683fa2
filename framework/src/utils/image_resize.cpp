// tf.image.resize (bilinear, nearest), keras's smart_resize crop and tf.image.resize_with_pad.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "utils/image_resize.h"

namespace kiln::utils::image_resize {
namespace {

// One output coordinate's two source rows (or columns) and the weight of the upper one.
struct Tap {
  int64_t lower, upper;
  float lerp;
};

std::vector<Tap> bilinear_taps(int64_t in, int64_t out) {
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  std::vector<Tap> taps(static_cast<std::size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const float src = (static_cast<float>(i) + 0.5f) * scale - 0.5f;
    const float floor_src = std::floor(src);
    taps[static_cast<std::size_t>(i)] = {std::max<int64_t>(static_cast<int64_t>(floor_src), 0),
                                         std::min<int64_t>(static_cast<int64_t>(std::ceil(src)), in - 1),
                                         src - floor_src};
  }
  return taps;
}

std::vector<int64_t> nearest_taps(int64_t in, int64_t out) {
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  std::vector<int64_t> taps(static_cast<std::size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const auto src = static_cast<int64_t>(std::floor((static_cast<float>(i) + 0.5f) * scale));
    taps[static_cast<std::size_t>(i)] = std::clamp<int64_t>(src, 0, in - 1);
  }
  return taps;
}

FloatImage resize_bilinear(const FloatImage& im, int64_t height, int64_t width) {
  const auto ys = bilinear_taps(im.height, height), xs = bilinear_taps(im.width, width);
  const int64_t c = im.channels;
  FloatImage out{height, width, c, std::vector<float>(static_cast<std::size_t>(height * width * c))};
  auto at = [&](int64_t y, int64_t x, int64_t k) { return im.data[static_cast<std::size_t>((y * im.width + x) * c + k)]; };
  for (int64_t y = 0; y < height; ++y) {
    const Tap& ty = ys[static_cast<std::size_t>(y)];
    for (int64_t x = 0; x < width; ++x) {
      const Tap& tx = xs[static_cast<std::size_t>(x)];
      for (int64_t k = 0; k < c; ++k) {
        const float tl = at(ty.lower, tx.lower, k), tr = at(ty.lower, tx.upper, k);
        const float bl = at(ty.upper, tx.lower, k), br = at(ty.upper, tx.upper, k);
        const float top = tl + (tr - tl) * tx.lerp, bottom = bl + (br - bl) * tx.lerp;
        out.data[static_cast<std::size_t>((y * width + x) * c + k)] = top + (bottom - top) * ty.lerp;
      }
    }
  }
  return out;
}

FloatImage resize_nearest(const FloatImage& im, int64_t height, int64_t width) {
  const auto ys = nearest_taps(im.height, height), xs = nearest_taps(im.width, width);
  const int64_t c = im.channels;
  FloatImage out{height, width, c, std::vector<float>(static_cast<std::size_t>(height * width * c))};
  for (int64_t y = 0; y < height; ++y)
    for (int64_t x = 0; x < width; ++x)
      std::copy_n(im.data.data() + (ys[static_cast<std::size_t>(y)] * im.width + xs[static_cast<std::size_t>(x)]) * c, c,
                  out.data.data() + (y * width + x) * c);
  return out;
}

// The window (top, left, height, width) of `im`.
FloatImage crop(const FloatImage& im, int64_t top, int64_t left, int64_t height, int64_t width) {
  const int64_t c = im.channels;
  FloatImage out{height, width, c, std::vector<float>(static_cast<std::size_t>(height * width * c))};
  for (int64_t y = 0; y < height; ++y)
    std::copy_n(im.data.data() + ((top + y) * im.width + left) * c, width * c, out.data.data() + y * width * c);
  return out;
}

}  // namespace

FloatImage to_float(const image_codec::Pixels& image) {
  return {image.height, image.width, image.channels, std::vector<float>(image.data.begin(), image.data.end())};
}

bool check_interpolation(const std::string& interpolation, const std::string& op) {
  if (interpolation == "bilinear" || interpolation == "nearest") return interpolation == "nearest";
  static const char* kKeras[] = {"bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic"};
  for (const char* name : kKeras)
    if (interpolation == name)
      throw ValueError(op + ": interpolation \"" + interpolation + "\" is not available in Kiln; use \"bilinear\" or \"nearest\"");
  throw ValueError("Argument `interpolation` should be one of ('bilinear', 'nearest', 'bicubic', 'area', 'lanczos3', "
                   "'lanczos5', 'gaussian', 'mitchellcubic'). Received: interpolation=" + interpolation);
}

FloatImage resize(const FloatImage& image, int64_t height, int64_t width, const std::string& interpolation) {
  if (height <= 0 || width <= 0 || image.height <= 0 || image.width <= 0)
    throw ValueError("resize: sizes must be positive; received an image of " + std::to_string(image.height) + "x" +
                     std::to_string(image.width) + " and a target of " + std::to_string(height) + "x" +
                     std::to_string(width));
  return check_interpolation(interpolation, "resize") ? resize_nearest(image, height, width)
                                                      : resize_bilinear(image, height, width);
}

FloatImage smart_resize(const FloatImage& image, int64_t height, int64_t width, const std::string& interpolation) {
  // Keras computes the crop in float32 when the image's shape is only known at run time, as in a tf.data map.
  const auto h = image.height, w = image.width;
  int64_t crop_h = static_cast<int64_t>(static_cast<float>(w * height) / static_cast<float>(width));
  crop_h = std::max<int64_t>(std::min(h, crop_h), 1);
  int64_t crop_w = static_cast<int64_t>(static_cast<float>(h * width) / static_cast<float>(height));
  crop_w = std::max<int64_t>(std::min(w, crop_w), 1);
  const auto top = static_cast<int64_t>(static_cast<float>(h - crop_h) / 2.0f);
  const auto left = static_cast<int64_t>(static_cast<float>(w - crop_w) / 2.0f);
  return resize(crop(image, top, left, crop_h, crop_w), height, width, interpolation);
}

FloatImage resize_with_pad(const FloatImage& image, int64_t height, int64_t width, const std::string& interpolation) {
  const float fh = static_cast<float>(image.height), fw = static_cast<float>(image.width);
  const float ratio = std::max(fw / static_cast<float>(width), fh / static_cast<float>(height));
  const float rh = fh / ratio, rw = fw / ratio;
  const auto resized_h = static_cast<int64_t>(std::floor(rh)), resized_w = static_cast<int64_t>(std::floor(rw));
  const int64_t pad_top = std::max<int64_t>(0, static_cast<int64_t>(std::floor((static_cast<float>(height) - rh) / 2)));
  const int64_t pad_left = std::max<int64_t>(0, static_cast<int64_t>(std::floor((static_cast<float>(width) - rw) / 2)));
  const FloatImage resized = resize(image, resized_h, resized_w, interpolation);
  const int64_t c = image.channels;
  FloatImage out{height, width, c, std::vector<float>(static_cast<std::size_t>(height * width * c), 0.0f)};
  for (int64_t y = 0; y < resized_h && pad_top + y < height; ++y)
    std::copy_n(resized.data.data() + y * resized_w * c, std::min(resized_w, width - pad_left) * c,
                out.data.data() + ((pad_top + y) * width + pad_left) * c);
  return out;
}

}  // namespace kiln::utils::image_resize
