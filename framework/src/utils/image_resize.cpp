// tf.image.resize (bilinear, nearest), keras's smart_resize crop and tf.image.resize_with_pad.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
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

// TF's ResizeBicubic (half-pixel centers, Keys' cubic with a = -0.5): the kernel is
// read from a table of 1025 steps, taps outside the image get weight 0, and the four
// weights are renormalized to sum to 1.
struct CubicTaps {
  std::array<int64_t, 4> index;
  std::array<float, 4> weight;
};

std::vector<CubicTaps> bicubic_taps(int64_t in, int64_t out) {
  constexpr int64_t kTable = 1 << 10;
  static const std::vector<float> table = [] {
    std::vector<float> t(2 * (kTable + 1));
    const double a = -0.5;
    for (int64_t i = 0; i <= kTable; ++i) {
      float x = static_cast<float>(i * 1.0 / kTable);
      t[static_cast<std::size_t>(2 * i)] = static_cast<float>(((a + 2) * x - (a + 3)) * x * x + 1);
      x += 1.0f;
      t[static_cast<std::size_t>(2 * i + 1)] = static_cast<float>(((a * x - 5 * a) * x + 8 * a) * x - 4 * a);
    }
    return t;
  }();
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  std::vector<CubicTaps> taps(static_cast<std::size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const float src = (static_cast<float>(i) + 0.5f) * scale - 0.5f;
    const auto base = static_cast<int64_t>(std::floor(src));
    const int64_t offset = std::lrint((src - static_cast<float>(base)) * static_cast<float>(kTable));
    const std::array<std::size_t, 4> entry{std::size_t(offset * 2 + 1), std::size_t(offset * 2),
                                           std::size_t((kTable - offset) * 2), std::size_t((kTable - offset) * 2 + 1)};
    CubicTaps& t = taps[static_cast<std::size_t>(i)];
    float sum = 0;
    for (int k = 0; k < 4; ++k) {
      const int64_t want = base - 1 + k;
      t.index[k] = std::clamp<int64_t>(want, 0, in - 1);
      t.weight[k] = t.index[k] == want ? table[entry[k]] : 0.0f;
      sum += t.weight[k];
    }
    if (std::abs(sum) >= 1000.0f * std::numeric_limits<float>::min())
      for (float& w : t.weight) w *= 1.0f / sum;
  }
  return taps;
}

FloatImage resize_bicubic(const FloatImage& im, int64_t height, int64_t width) {
  const auto ys = bicubic_taps(im.height, height), xs = bicubic_taps(im.width, width);
  const int64_t c = im.channels;
  FloatImage out{height, width, c, std::vector<float>(static_cast<std::size_t>(height * width * c))};
  auto at = [&](int64_t y, int64_t x, int64_t k) { return im.data[static_cast<std::size_t>((y * im.width + x) * c + k)]; };
  for (int64_t y = 0; y < height; ++y) {
    const CubicTaps& ty = ys[static_cast<std::size_t>(y)];
    for (int64_t x = 0; x < width; ++x) {
      const CubicTaps& tx = xs[static_cast<std::size_t>(x)];
      for (int64_t k = 0; k < c; ++k) {
        std::array<float, 4> rows{};
        for (int r = 0; r < 4; ++r)
          rows[r] = at(ty.index[r], tx.index[0], k) * tx.weight[0] + at(ty.index[r], tx.index[1], k) * tx.weight[1] +
                    at(ty.index[r], tx.index[2], k) * tx.weight[2] + at(ty.index[r], tx.index[3], k) * tx.weight[3];
        out.data[static_cast<std::size_t>((y * width + x) * c + k)] =
            rows[0] * ty.weight[0] + rows[1] * ty.weight[1] + rows[2] * ty.weight[2] + rows[3] * ty.weight[3];
      }
    }
  }
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
  if (interpolation == "bilinear" || interpolation == "nearest" || interpolation == "bicubic")
    return interpolation == "nearest";
  static const char* kKeras[] = {"area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic"};
  for (const char* name : kKeras)
    if (interpolation == name)
      throw ValueError(op + ": interpolation \"" + interpolation +
                       "\" is not available in Kiln; use \"bilinear\", \"nearest\" or \"bicubic\"");
  throw ValueError("Argument `interpolation` should be one of ('bilinear', 'nearest', 'bicubic', 'area', 'lanczos3', "
                   "'lanczos5', 'gaussian', 'mitchellcubic'). Received: interpolation=" + interpolation);
}

FloatImage resize(const FloatImage& image, int64_t height, int64_t width, const std::string& interpolation) {
  if (height <= 0 || width <= 0 || image.height <= 0 || image.width <= 0)
    throw ValueError("resize: sizes must be positive; received an image of " + std::to_string(image.height) + "x" +
                     std::to_string(image.width) + " and a target of " + std::to_string(height) + "x" +
                     std::to_string(width));
  if (check_interpolation(interpolation, "resize")) return resize_nearest(image, height, width);
  return interpolation == "bicubic" ? resize_bicubic(image, height, width) : resize_bilinear(image, height, width);
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
