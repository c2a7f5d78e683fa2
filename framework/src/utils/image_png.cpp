// PNG decoding and encoding through libpng. libpng reports errors by longjmp
// to the setjmp in the calling function (png_jmpbuf), which then throws IOError;
// the message comes from the error callback.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <png.h>

#include "kiln/core/error.h"
#include "utils/image_codec.h"

namespace kiln::utils::image_codec {
namespace {

struct PngReader {
  const std::vector<uint8_t>* bytes;
  std::size_t pos = 0;
  std::string message;
};

void png_on_error(png_structp png, png_const_charp text) {
  auto* state = static_cast<std::string*>(png_get_error_ptr(png));
  *state = text;
  png_longjmp(png, 1);
}

void png_on_warning(png_structp, png_const_charp) {}

void png_read_bytes(png_structp png, png_bytep dst, png_size_t n) {
  auto* reader = static_cast<PngReader*>(png_get_io_ptr(png));
  if (reader->bytes->size() - reader->pos < n) png_error(png, "the file is truncated (read past its end)");
  std::memcpy(dst, reader->bytes->data() + reader->pos, n);
  reader->pos += n;
}

void png_write_bytes(png_structp png, png_bytep src, png_size_t n) {
  auto* out = static_cast<std::vector<uint8_t>*>(png_get_io_ptr(png));
  out->insert(out->end(), src, src + n);
}

void png_flush_nothing(png_structp) {}

// The transformations TF's decode_png asks of libpng for `channels` output channels.
void set_transforms(png_structp png, png_infop info, int64_t channels) {
  const int color = png_get_color_type(png, info);
  const bool gray = !(color & PNG_COLOR_MASK_COLOR);
  if (png_get_bit_depth(png, info) == 16) png_set_strip_16(png);
  if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (gray && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
  const bool has_alpha = (color & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  if (channels == 1 || channels == 3) {
    if (has_alpha) png_set_strip_alpha(png);
  } else if (!has_alpha) {
    png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
  }
  if (channels == 1 && !gray) png_set_rgb_to_gray_fixed(png, 1, 29900, 58700);
  if (channels >= 3 && gray) png_set_gray_to_rgb(png);
}

}  // namespace

Pixels decode_png(const std::vector<uint8_t>& bytes, int64_t channels, const std::string& path) {
  PngReader reader{&bytes, 0, {}};
  Pixels out;
  std::vector<png_bytep> rows;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reader.message, png_on_error, png_on_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw IOError("cannot decode the PNG image '" + path + "': out of memory");
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw IOError("cannot decode the PNG image '" + path + "': " + reader.message);
  }
  png_set_read_fn(png, &reader, png_read_bytes);
  png_read_info(png, info);
  set_transforms(png, info, channels);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  out.height = png_get_image_height(png, info);
  out.width = png_get_image_width(png, info);
  out.channels = png_get_channels(png, info);
  out.data.resize(static_cast<std::size_t>(out.height * out.width * out.channels));
  rows.resize(static_cast<std::size_t>(out.height));
  for (int64_t y = 0; y < out.height; ++y) rows[static_cast<std::size_t>(y)] = out.data.data() + y * out.width * out.channels;
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return out;
}

std::vector<uint8_t> encode_png(const Pixels& image, const std::string& path) {
  static const int kColorTypes[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                    PNG_COLOR_TYPE_RGBA};
  std::vector<uint8_t> out;
  std::string message;
  std::vector<png_bytep> rows(static_cast<std::size_t>(image.height));
  for (int64_t y = 0; y < image.height; ++y)
    rows[static_cast<std::size_t>(y)] = const_cast<png_bytep>(image.data.data() + y * image.width * image.channels);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &message, png_on_error, png_on_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!png || !info) {
    png_destroy_write_struct(&png, &info);
    throw IOError("cannot encode the PNG image '" + path + "': out of memory");
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw IOError("cannot encode the PNG image '" + path + "': " + message);
  }
  png_set_write_fn(png, &out, png_write_bytes, png_flush_nothing);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image.width), static_cast<png_uint_32>(image.height), 8,
               kColorTypes[std::clamp<int64_t>(image.channels, 1, 4)], PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

}  // namespace kiln::utils::image_codec
