#pragma once
// Private: PIL's Image.resize(size, resample, box) for 8-bit images, which
// keras.utils.load_img calls: "nearest" samples, and the convolution filters
// ("bilinear", "bicubic", "hamming", "box", "lanczos") resample in two passes
// (horizontal, then vertical) with PIL's 22-bit fixed-point weights and rounding.
#include <array>
#include <cstdint>
#include <string>

#include "utils/image_codec.h"

namespace kiln::utils::image_pil_resize {

/// Whether `name` is one of PIL's resampling filters as Keras names them.
bool is_pil_filter(const std::string& name);

/// The window box = (left, upper, right, lower) of `image` resized to (height, width).
/// RGBA is resampled with premultiplied alpha, as PIL does for filters other than nearest.
image_codec::Pixels resize(const image_codec::Pixels& image, int64_t height, int64_t width,
                           const std::array<double, 4>& box, const std::string& filter);

}  // namespace kiln::utils::image_pil_resize
