// PIL's resampling (Pillow's Resample.c and its nearest transform), for load_img.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "utils/image_pil_resize.h"

namespace kiln::utils::image_pil_resize {
namespace {

using image_codec::Pixels;
constexpr int kPrecisionBits = 32 - 8 - 2;

struct Filter {
  double support;
  double (*weight)(double);
};

double pil_sinc(double x) {
  if (x == 0.0) return 1.0;
  x *= std::numbers::pi;
  return std::sin(x) / x;
}

const Filter* filter_named(const std::string& name) {
  static const Filter box{0.5, [](double x) { return x > -0.5 && x <= 0.5 ? 1.0 : 0.0; }};
  static const Filter bilinear{1.0, [](double x) { x = std::abs(x); return x < 1.0 ? 1.0 - x : 0.0; }};
  static const Filter hamming{1.0, [](double x) {
    x = std::abs(x);
    if (x == 0.0) return 1.0;
    if (x >= 1.0) return 0.0;
    x *= std::numbers::pi;
    return std::sin(x) / x * (0.54 + 0.46 * std::cos(x));
  }};
  static const Filter bicubic{2.0, [](double x) {
    const double a = -0.5;
    x = std::abs(x);
    if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
    return 0.0;
  }};
  static const Filter lanczos{3.0, [](double x) { return -3.0 <= x && x < 3.0 ? pil_sinc(x) * pil_sinc(x / 3) : 0.0; }};
  if (name == "box") return &box;
  if (name == "bilinear") return &bilinear;
  if (name == "hamming") return &hamming;
  if (name == "bicubic") return &bicubic;
  if (name == "lanczos") return &lanczos;
  return nullptr;
}

// One output position's source window and fixed-point weights (precompute_coeffs
// and normalize_coeffs_8bpc).
struct Taps {
  int64_t first = 0;
  std::vector<int32_t> weights;
};

std::vector<Taps> coefficients(int64_t in_size, double in0, double in1, int64_t out_size, const Filter& f) {
  const double scale = (in1 - in0) / static_cast<double>(out_size);
  const double filter_scale = std::max(scale, 1.0);
  const double support = f.support * filter_scale;
  std::vector<Taps> taps(static_cast<std::size_t>(out_size));
  for (int64_t i = 0; i < out_size; ++i) {
    const double center = in0 + (static_cast<double>(i) + 0.5) * scale;
    const int64_t lo = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
    const int64_t hi = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in_size);
    std::vector<double> w;
    double total = 0;
    for (int64_t x = lo; x < hi; ++x) {
      w.push_back(f.weight((static_cast<double>(x) - center + 0.5) / filter_scale));
      total += w.back();
    }
    Taps& t = taps[static_cast<std::size_t>(i)];
    t.first = lo;
    for (double v : w) {
      const double k = (total != 0.0 ? v / total : v) * (1 << kPrecisionBits);
      t.weights.push_back(static_cast<int32_t>(k < 0 ? k - 0.5 : k + 0.5));
    }
  }
  return taps;
}

uint8_t clip8(int64_t v) {
  if (v >= (int64_t{1} << kPrecisionBits << 8)) return 255;
  if (v <= 0) return 0;
  return static_cast<uint8_t>(v >> kPrecisionBits);
}

// One pass along `axis` (1: columns, 0: rows) of a (rows, cols, channels) image.
Pixels pass(const Pixels& in, const std::vector<Taps>& taps, int axis) {
  const int64_t c = in.channels;
  Pixels out = in;
  (axis == 1 ? out.width : out.height) = static_cast<int64_t>(taps.size());
  out.data.assign(static_cast<std::size_t>(out.height * out.width * c), 0);
  for (int64_t y = 0; y < out.height; ++y)
    for (int64_t x = 0; x < out.width; ++x) {
      const Taps& t = taps[static_cast<std::size_t>(axis == 1 ? x : y)];
      for (int64_t k = 0; k < c; ++k) {
        int64_t sum = int64_t{1} << (kPrecisionBits - 1);
        for (std::size_t j = 0; j < t.weights.size(); ++j) {
          const int64_t sy = axis == 1 ? y : t.first + static_cast<int64_t>(j);
          const int64_t sx = axis == 1 ? t.first + static_cast<int64_t>(j) : x;
          sum += int64_t{in.data[static_cast<std::size_t>((sy * in.width + sx) * c + k)]} * t.weights[j];
        }
        out.data[static_cast<std::size_t>((y * out.width + x) * c + k)] = clip8(sum);
      }
    }
  return out;
}

// PIL's RGBA -> RGBa (alpha-premultiplied) and back, around a filtered resize.
void premultiply(Pixels& im) {
  for (std::size_t i = 0; i < im.data.size(); i += 4)
    for (std::size_t k = 0; k < 3; ++k) {
      const unsigned tmp = unsigned(im.data[i + k]) * im.data[i + 3] + 128;
      im.data[i + k] = static_cast<uint8_t>(((tmp >> 8) + tmp) >> 8);
    }
}
void unpremultiply(Pixels& im) {
  for (std::size_t i = 0; i < im.data.size(); i += 4) {
    const unsigned alpha = im.data[i + 3];
    if (alpha == 0 || alpha == 255) continue;
    for (std::size_t k = 0; k < 3; ++k) im.data[i + k] = static_cast<uint8_t>(std::min(255u, 255u * im.data[i + k] / alpha));
  }
}

Pixels nearest(const Pixels& im, int64_t height, int64_t width, const std::array<double, 4>& box) {
  const double sx = (box[2] - box[0]) / double(width), sy = (box[3] - box[1]) / double(height);
  Pixels out{height, width, im.channels, std::vector<uint8_t>(std::size_t(height * width * im.channels))};
  for (int64_t y = 0; y < height; ++y) {
    const int64_t iy = std::clamp<int64_t>(int64_t(box[1] + (double(y) + 0.5) * sy), 0, im.height - 1);
    for (int64_t x = 0; x < width; ++x) {
      const int64_t ix = std::clamp<int64_t>(int64_t(box[0] + (double(x) + 0.5) * sx), 0, im.width - 1);
      std::copy_n(im.data.data() + (iy * im.width + ix) * im.channels, im.channels,
                  out.data.data() + (y * width + x) * im.channels);
    }
  }
  return out;
}

}  // namespace

bool is_pil_filter(const std::string& name) { return name == "nearest" || filter_named(name) != nullptr; }

Pixels resize(const Pixels& image, int64_t height, int64_t width, const std::array<double, 4>& box,
              const std::string& filter_name) {
  const Filter* f = filter_named(filter_name);
  if (!f) return nearest(image, height, width, box);
  Pixels im = image;
  if (im.channels == 4) premultiply(im);
  // PIL skips a pass whose axis neither changes size nor starts the box anywhere but 0.
  const bool horizontal = width != im.width || box[0] != 0 || box[2] != double(width);
  const bool vertical = height != im.height || box[1] != 0 || box[3] != double(height);
  if (horizontal) im = pass(im, coefficients(im.width, box[0], box[2], width, *f), 1);
  if (vertical) im = pass(im, coefficients(im.height, box[1], box[3], height, *f), 0);
  if (im.channels == 4) unpremultiply(im);
  return im;
}

}  // namespace kiln::utils::image_pil_resize
