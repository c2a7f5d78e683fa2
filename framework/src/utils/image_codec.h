#pragma once
// Private: the image file codecs under kiln::utils' image loading. Pixels are
// 8-bit, row-major, interleaved (height, width, channels). Only the codec .cpp
// files include the libraries' headers (jpeglib.h, png.h, gif_lib.h).
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::utils::image_codec {

/// A decoded image: height x width x channels bytes.
struct Pixels {
  int64_t height = 0, width = 0, channels = 0;
  std::vector<uint8_t> data;
};

/// The whole file, or IOError naming it.
std::vector<uint8_t> read_file(const std::string& path);
/// Writes the bytes, or IOError naming the file.
void write_file(const std::string& path, const std::vector<uint8_t>& bytes);

/// Whose conversions decode_image follows: PIL's (keras.utils.load_img: every
/// format decoded, then converted with PIL's luma) or TF's (tf.io.decode_image,
/// under image_dataset_from_directory: PNG reduced to gray by libpng with weights
/// 0.299/0.587, JPEG by libjpeg (its Y channel); TF refuses 4-channel JPEG,
/// 1- or 4-channel GIF and 1-channel BMP with InvalidArgumentError, uses the fast
/// integer IDCT for JPEG and reads an 8-bit BMP's indices as gray levels).
enum class Rules { pil, tf };

/// Decodes the first image of a JPEG, PNG, GIF or BMP file (told apart by its
/// leading bytes, as tf.io.decode_image does) into `channels` channels (1, 3 or 4),
/// or throws IOError naming `path` and what is wrong with the file.
Pixels decode_image(const std::vector<uint8_t>& bytes, int64_t channels, const std::string& path, Rules rules);

/// The decoders, each to the file's own channel count, except JPEG which
/// decodes to 1 channel when want_gray and 3 otherwise (libjpeg's own conversion).
/// fast_dct picks libjpeg's JDCT_IFAST inverse DCT, TF's decode_jpeg default (its
/// dct_method "" means INTEGER_FAST); otherwise JDCT_ISLOW, libjpeg's (and PIL's) default.
Pixels decode_jpeg(const std::vector<uint8_t>& bytes, bool want_gray, const std::string& path, bool fast_dct = false);
/// PNG to `channels` channels through libpng's transformations (as TF's decode_png;
/// RGB to gray with the weights 0.299, 0.587, 0.114).
Pixels decode_png(const std::vector<uint8_t>& bytes, int64_t channels, const std::string& path);
/// The first frame of a GIF on its logical screen, as RGB (TF's decode_gif).
Pixels decode_gif(const std::vector<uint8_t>& bytes, const std::string& path);
/// An uncompressed BMP: 1-, 4- or 8-bit palette, 24-bit or 32-bit (RGBA) pixels.
/// With indices_as_gray an 8-bit image's color table is ignored and each index is
/// its gray level, as TF's decode_bmp does.
Pixels decode_bmp(const std::vector<uint8_t>& bytes, const std::string& path, bool indices_as_gray = false);

/// The encoders; `path` only names the file in errors.
std::vector<uint8_t> encode_png(const Pixels& image, const std::string& path);
/// Baseline JPEG at `quality` (1 channel or 3; PIL's default quality is 75).
std::vector<uint8_t> encode_jpeg(const Pixels& image, int quality, const std::string& path);
/// 8-bit gray-palette (1 channel), 24-bit (3) or 32-bit (4) bottom-up BMP, as PIL writes them.
std::vector<uint8_t> encode_bmp(const Pixels& image);

/// Converts between 1 (gray), 2 (gray + alpha), 3 (RGB) and 4 (RGBA) channels:
/// gray is replicated, alpha dropped or set to 255, and RGB reduced to gray with
/// ITU-R 601 weights (0.299, 0.587, 0.114, as PIL's convert("L") rounds them).
Pixels convert_channels(Pixels image, int64_t channels);

}  // namespace kiln::utils::image_codec
