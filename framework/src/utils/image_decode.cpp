// Image files in and out, the format sniffing of tf.io.decode_image, and channel conversion.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "utils/image_codec.h"

namespace kiln::utils::image_codec {
namespace {

bool starts_with(const std::vector<uint8_t>& b, std::initializer_list<uint8_t> magic) {
  return b.size() >= magic.size() && std::equal(magic.begin(), magic.end(), b.begin());
}

// PIL's convert("L"): ITU-R 601 luma in 16-bit fixed point, rounded.
uint8_t luma(const uint8_t* rgb) {
  return static_cast<uint8_t>((rgb[0] * 19595u + rgb[1] * 38470u + rgb[2] * 7471u + 0x8000u) >> 16);
}

// tf.io.decode_image's refusals of a channel count for a format (not a fault of the file).
[[noreturn]] void throw_channels(const std::string& path, const std::string& what) {
  throw InvalidArgumentError("cannot decode the image '" + path + "' with the requested color_mode: " + what);
}

}  // namespace

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError("cannot open the file '" + path + "' for reading");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw IOError("cannot read the file '" + path + "'");
  return bytes;
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw IOError("cannot open the file '" + path + "' for writing");
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw IOError("cannot write the file '" + path + "'");
}

Pixels convert_channels(Pixels image, int64_t channels) {
  const int64_t from = image.channels;
  if (from == channels) return image;
  const int64_t n = image.height * image.width;
  Pixels out{image.height, image.width, channels, std::vector<uint8_t>(static_cast<std::size_t>(n * channels))};
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* s = image.data.data() + i * from;
    uint8_t* d = out.data.data() + i * channels;
    const bool color = from >= 3;
    const uint8_t alpha = from == 2 ? s[1] : from == 4 ? s[3] : 255;
    if (channels == 1 || channels == 2) {
      d[0] = color ? luma(s) : s[0];
      if (channels == 2) d[1] = alpha;
    } else {
      for (int k = 0; k < 3; ++k) d[k] = color ? s[k] : s[0];
      if (channels == 4) d[3] = alpha;
    }
  }
  return out;
}

Pixels decode_image(const std::vector<uint8_t>& bytes, int64_t channels, const std::string& path, Rules rules) {
  Pixels image;
  const bool tf = rules == Rules::tf;
  if (starts_with(bytes, {0xFF, 0xD8, 0xFF})) {
    if (tf && channels == 4) throw_channels(path, "JPEG does not support 4 channels");
    image = decode_jpeg(bytes, tf && channels == 1, path, tf);
  } else if (starts_with(bytes, {0x89, 'P', 'N', 'G'})) {
    image = decode_png(bytes, tf || channels != 1 ? channels : 4, path);
  } else if (starts_with(bytes, {'G', 'I', 'F', '8'})) {
    if (tf && channels != 3) throw_channels(path, "channels must be 0 or 3 for GIF, got " + std::to_string(channels));
    image = decode_gif(bytes, path);
  } else if (starts_with(bytes, {'B', 'M'})) {
    if (tf && channels == 1) throw_channels(path, "`channels` must be 0, 3 or 4 for BMP, but got 1");
    image = decode_bmp(bytes, path, tf);
  } else {
    throw IOError("cannot decode the image '" + path + "': unknown image file format (" + std::to_string(bytes.size()) +
                  " bytes). One of JPEG, PNG, GIF, BMP is required.");
  }
  return convert_channels(std::move(image), channels);
}

}  // namespace kiln::utils::image_codec
