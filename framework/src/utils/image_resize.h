#pragma once
// Private: tf.image.resize's bilinear, nearest and bicubic kernels (half-pixel
// centers, no antialiasing, float32 arithmetic as TF's ResizeBilinear /
// ResizeNearestNeighbor / ResizeBicubic),
// and the crop and pad steps of keras's smart_resize and tf.image.resize_with_pad.
#include <cstdint>
#include <string>
#include <vector>

#include "utils/image_codec.h"

namespace kiln::utils::image_resize {

/// A float image: height x width x channels, row-major, interleaved.
struct FloatImage {
  int64_t height = 0, width = 0, channels = 0;
  std::vector<float> data;
};

/// The bytes as floats.
FloatImage to_float(const image_codec::Pixels& image);
/// ValueError unless `interpolation` is one tf.image.resize names; IOError-free.
/// `op` names the caller in the message. Returns whether it is "nearest".
bool check_interpolation(const std::string& interpolation, const std::string& op);
/// tf.image.resize(image, (height, width), method) for "bilinear", "nearest" or "bicubic".
FloatImage resize(const FloatImage& image, int64_t height, int64_t width, const std::string& interpolation);
/// keras.preprocessing.image.smart_resize: the largest centered crop with the
/// target's aspect ratio, resized to (height, width).
FloatImage smart_resize(const FloatImage& image, int64_t height, int64_t width, const std::string& interpolation);
/// tf.image.resize_with_pad: resized to fit inside (height, width) keeping the
/// aspect ratio, then zero-padded around, centered.
FloatImage resize_with_pad(const FloatImage& image, int64_t height, int64_t width, const std::string& interpolation);

}  // namespace kiln::utils::image_resize
