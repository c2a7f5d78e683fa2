#pragma once
// keras.utils' image helpers: load_img, img_to_array, array_to_img, save_img and
// smart_resize. Keras passes PIL images between them; Kiln has no PIL, so an
// "image" here is a uint8 tensor of shape (height, width, channels), channels
// 1 (grayscale), 3 (RGB) or 4 (RGBA).
//
//   kiln::Tensor img = kiln::utils::load_img("cat.jpg", {.target_size = {{224, 224}}});  // (224, 224, 3) uint8
//   kiln::Tensor x = kiln::utils::img_to_array(img);                                     // (224, 224, 3) float32
//   kiln::utils::save_img("out.png", x);        // rescaled to 0..255 first (scale = true)
//
// Files: JPEG (libjpeg), PNG (libpng), GIF (giflib, first frame) and BMP
// (uncompressed 1/4/8-bit palette, 24- and 32-bit) are told apart by their
// leading bytes, not their names. An unreadable, corrupt or truncated file
// throws kiln::IOError naming the file and the fault.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/dtype.h"
#include "kiln/core/tensor.h"

namespace kiln::utils {

/// keras.utils.load_img's options, with its defaults.
struct LoadImgOptions {
  /// "grayscale" (1 channel), "rgb" (3) or "rgba" (4). RGB to gray uses PIL's
  /// convert("L") weights: (19595 R + 38470 G + 7471 B + 32768) >> 16.
  std::string color_mode = "rgb";
  /// (height, width) to resize to; the file's own size when absent.
  std::optional<std::array<int64_t, 2>> target_size = std::nullopt;
  /// Resampling when target_size differs from the file's size, as PIL's Image.resize:
  /// "nearest" (source pixel floor((i + 0.5) * in / out)), or the filters "bilinear",
  /// "bicubic", "hamming", "box" and "lanczos", which PIL widens when shrinking
  /// (antialiasing) and applies in 8-bit fixed point; Kiln reproduces its arithmetic.
  std::string interpolation = "nearest";
  /// Resize the largest centered crop with the target's aspect ratio (PIL's box argument).
  bool keep_aspect_ratio = false;
};

/// keras.utils.load_img: the image file at `path` as a (height, width, channels) uint8 tensor.
Tensor load_img(const std::string& path, const LoadImgOptions& options = {});

/// keras.utils.img_to_array: a rank-2 (height, width) or rank-3 image as a rank-3
/// `dtype` tensor; "channels_first" gives (channels, height, width).
Tensor img_to_array(const Tensor& img, const std::string& data_format = "channels_last", DType dtype = DType::float32);

/// keras.utils.array_to_img: a rank-3 array as a uint8 (height, width, channels)
/// image. With `scale`, x is shifted to a minimum of 0 and scaled to a maximum of
/// 255 (x - min(x), then * 255 / max); values are then truncated to integers as
/// NumPy's astype("uint8") does. Without `scale`, values outside [0, 255] throw
/// ValueError (Keras would wrap them around). Channels must be 1, 3 or 4.
Tensor array_to_img(const Tensor& x, const std::string& data_format = "channels_last", bool scale = true);

/// keras.utils.save_img's options.
struct SaveImgOptions {
  /// "channels_last" or "channels_first" (the layout of x).
  std::string data_format = "channels_last";
  /// "png", "jpeg" ("jpg") or "bmp"; from the file name's extension when absent.
  std::optional<std::string> file_format = std::nullopt;
  /// Rescale x to 0..255 first (see array_to_img).
  bool scale = true;
  /// JPEG quality (PIL's default, 75).
  int quality = 75;
};

/// keras.utils.save_img: writes x (array_to_img(x, data_format, scale)) as an image
/// file. RGBA saved as JPEG loses its alpha (Keras converts to RGB, with a warning).
void save_img(const std::string& path, const Tensor& x, const SaveImgOptions& options = {});

/// keras.preprocessing.image.smart_resize: resizes an image (height, width, channels),
/// or a batch of them, to `size` = (height, width) without distorting it: the largest
/// centered crop with the target's aspect ratio is resized with tf.image.resize
/// ("bilinear", "nearest" or "bicubic", half-pixel centers). Returns float32.
Tensor smart_resize(const Tensor& x, std::array<int64_t, 2> size, const std::string& interpolation = "bilinear",
                    const std::string& data_format = "channels_last");

}  // namespace kiln::utils
