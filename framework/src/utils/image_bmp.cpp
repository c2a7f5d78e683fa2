// BMP reading and writing (no library): uncompressed 1-, 4- and 8-bit palette
// images and 24- and 32-bit pixels, bottom-up or top-down (negative height).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "utils/image_codec.h"

namespace kiln::utils::image_codec {
namespace {

uint32_t bmp_u32(const std::vector<uint8_t>& b, std::size_t at) {
  return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}
uint16_t bmp_u16(const std::vector<uint8_t>& b, std::size_t at) { return uint16_t(b[at] | b[at + 1] << 8); }

void put_u32(std::vector<uint8_t>& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
void put_u16(std::vector<uint8_t>& b, uint16_t v) { b.push_back(uint8_t(v)); b.push_back(uint8_t(v >> 8)); }

struct BmpHeader {
  uint32_t offset, header_size, compression, colors;
  int64_t width, height;
  uint16_t bits;
  bool top_down;
};

BmpHeader read_bmp_header(const std::vector<uint8_t>& b, const std::string& what) {
  if (b.size() < 26) throw IOError(what + "the file is truncated (" + std::to_string(b.size()) + " bytes, no header)");
  BmpHeader h{};
  h.offset = bmp_u32(b, 10);
  h.header_size = bmp_u32(b, 14);
  if (h.header_size < 40 || b.size() < 14 + std::size_t(h.header_size))
    throw IOError(what + "unsupported or truncated info header of " + std::to_string(h.header_size) + " bytes");
  h.width = static_cast<int32_t>(bmp_u32(b, 18));
  const int32_t height = static_cast<int32_t>(bmp_u32(b, 22));
  h.top_down = height < 0;
  h.height = h.top_down ? -int64_t(height) : int64_t(height);
  h.bits = bmp_u16(b, 28);
  h.compression = bmp_u32(b, 30);
  h.colors = bmp_u32(b, 46);
  if (h.width <= 0 || h.height <= 0 || h.width > (1 << 16) || h.height > (1 << 16))
    throw IOError(what + "invalid size " + std::to_string(h.width) + "x" + std::to_string(h.height));
  const bool bitfields32 = h.compression == 3 && h.bits == 32;  // the standard BGRA masks only
  if (h.compression != 0 && !bitfields32)
    throw IOError(what + "compressed BMP (compression " + std::to_string(h.compression) + ") is not supported");
  if (h.bits != 1 && h.bits != 4 && h.bits != 8 && h.bits != 24 && h.bits != 32)
    throw IOError(what + std::to_string(h.bits) + "-bit pixels are not supported");
  return h;
}

}  // namespace

Pixels decode_bmp(const std::vector<uint8_t>& b, const std::string& path, bool indices_as_gray) {
  const std::string what = "cannot decode the BMP image '" + path + "': ";
  const BmpHeader h = read_bmp_header(b, what);
  const std::size_t stride = ((std::size_t(h.width) * h.bits + 31) / 32) * 4;
  if (h.offset > b.size() || b.size() - h.offset < stride * std::size_t(h.height))
    throw IOError(what + "the file is truncated (" + std::to_string(b.size()) + " bytes; the pixels need " +
                  std::to_string(std::size_t(h.offset) + stride * std::size_t(h.height)) + ")");
  std::vector<uint8_t> palette;  // RGB triples
  bool gray_palette = true;
  if (h.bits == 8 && indices_as_gray) {
    for (int i = 0; i < 256; ++i) palette.insert(palette.end(), {uint8_t(i), uint8_t(i), uint8_t(i)});
  } else if (h.bits <= 8) {
    const uint32_t count = h.colors ? h.colors : (1u << h.bits);
    const std::size_t at = 14 + h.header_size;
    if (count > 256 || at + 4 * std::size_t(count) > h.offset)
      throw IOError(what + "invalid color table of " + std::to_string(count) + " entries");
    for (uint32_t i = 0; i < count; ++i) {
      const uint8_t* q = b.data() + at + 4 * i;
      palette.insert(palette.end(), {q[2], q[1], q[0]});
      gray_palette = gray_palette && q[0] == q[1] && q[1] == q[2];
    }
  }
  Pixels out{h.height, h.width, h.bits == 32 ? 4 : (h.bits <= 8 && gray_palette ? 1 : 3), {}};
  out.data.resize(static_cast<std::size_t>(out.height * out.width * out.channels));
  for (int64_t y = 0; y < h.height; ++y) {
    const uint8_t* row = b.data() + h.offset + stride * std::size_t(h.top_down ? y : h.height - 1 - y);
    uint8_t* dst = out.data.data() + y * h.width * out.channels;
    for (int64_t x = 0; x < h.width; ++x, dst += out.channels) {
      if (h.bits >= 24) {
        const uint8_t* p = row + x * (h.bits / 8);
        dst[0] = p[2], dst[1] = p[1], dst[2] = p[0];
        if (h.bits == 32) dst[3] = p[3];
        continue;
      }
      const int64_t bit = x * h.bits;
      const unsigned index = (row[bit / 8] >> (8 - h.bits - bit % 8)) & ((1u << h.bits) - 1);
      if (3 * std::size_t(index) >= palette.size())
        throw IOError(what + "pixel index " + std::to_string(index) + " is outside the color table of " +
                      std::to_string(palette.size() / 3) + " entries");
      std::copy_n(palette.data() + 3 * index, out.channels, dst);
    }
  }
  return out;
}

std::vector<uint8_t> encode_bmp(const Pixels& image) {
  const uint16_t bits = image.channels == 1 ? 8 : image.channels == 4 ? 32 : 24;
  const std::size_t stride = ((std::size_t(image.width) * bits + 31) / 32) * 4;
  const uint32_t palette_bytes = bits == 8 ? 1024 : 0;
  const uint32_t offset = 14 + 40 + palette_bytes;
  std::vector<uint8_t> b{'B', 'M'};
  put_u32(b, uint32_t(offset + stride * std::size_t(image.height)));
  put_u32(b, 0);
  put_u32(b, offset);
  put_u32(b, 40);
  put_u32(b, uint32_t(image.width));
  put_u32(b, uint32_t(image.height));
  put_u16(b, 1);
  put_u16(b, bits);
  for (uint32_t v : {0u, uint32_t(stride * std::size_t(image.height)), 2835u, 2835u, bits == 8 ? 256u : 0u, 0u})
    put_u32(b, v);
  for (uint32_t i = 0; i < palette_bytes / 4; ++i) b.insert(b.end(), {uint8_t(i), uint8_t(i), uint8_t(i), 0});
  for (int64_t y = image.height - 1; y >= 0; --y) {
    const uint8_t* src = image.data.data() + y * image.width * image.channels;
    std::size_t written = 0;
    for (int64_t x = 0; x < image.width; ++x, src += image.channels) {
      if (bits == 8) b.push_back(src[0]);
      else b.insert(b.end(), {src[2], src[1], src[0]});
      if (bits == 32) b.push_back(src[3]);
      written += bits / 8;
    }
    b.insert(b.end(), stride - written, 0);
  }
  return b;
}

}  // namespace kiln::utils::image_codec
