// The first frame of a GIF through giflib, placed on the logical screen as TF's
// decode_gif does: pixels outside the frame, and transparent ones, are black.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <gif_lib.h>

#include "kiln/core/error.h"
#include "utils/image_codec.h"

namespace kiln::utils::image_codec {
namespace {

struct GifSource {
  const std::vector<uint8_t>* bytes;
  std::size_t pos = 0;
};

int gif_read_bytes(GifFileType* gif, GifByteType* dst, int n) {
  auto* source = static_cast<GifSource*>(gif->UserData);
  const std::size_t left = source->bytes->size() - source->pos;
  const std::size_t take = std::min(left, static_cast<std::size_t>(n < 0 ? 0 : n));
  std::memcpy(dst, source->bytes->data() + source->pos, take);
  source->pos += take;
  return static_cast<int>(take);
}

struct GifCloser {
  GifFileType* gif;
  ~GifCloser() {
    int error = 0;
    if (gif) DGifCloseFile(gif, &error);
  }
};

int transparent_index(const GifFileType* gif) {
  GraphicsControlBlock gcb;
  if (gif->ImageCount > 0 && DGifSavedExtensionToGCB(const_cast<GifFileType*>(gif), 0, &gcb) == GIF_OK)
    return gcb.TransparentColor;
  return NO_TRANSPARENT_COLOR;
}

}  // namespace

Pixels decode_gif(const std::vector<uint8_t>& bytes, const std::string& path) {
  const std::string what = "cannot decode the GIF image '" + path + "': ";
  GifSource source{&bytes};
  int error = 0;
  GifCloser closer{DGifOpen(&source, gif_read_bytes, &error)};
  GifFileType* gif = closer.gif;
  if (!gif) throw IOError(what + GifErrorString(error));
  if (DGifSlurp(gif) != GIF_OK) throw IOError(what + GifErrorString(gif->Error));
  if (gif->ImageCount < 1) throw IOError(what + "the file holds no frame");
  const SavedImage& frame = gif->SavedImages[0];
  const GifImageDesc& desc = frame.ImageDesc;
  const ColorMapObject* map = desc.ColorMap ? desc.ColorMap : gif->SColorMap;
  if (!map) throw IOError(what + "the first frame has no color map");
  Pixels out{gif->SHeight, gif->SWidth, 3, {}};
  out.data.assign(static_cast<std::size_t>(out.height * out.width * 3), 0);
  const int transparent = transparent_index(gif);
  for (int64_t y = 0; y < desc.Height; ++y) {
    const int64_t sy = desc.Top + y;
    if (sy < 0 || sy >= out.height) continue;
    for (int64_t x = 0; x < desc.Width; ++x) {
      const int64_t sx = desc.Left + x;
      if (sx < 0 || sx >= out.width) continue;
      const int index = frame.RasterBits[y * desc.Width + x];
      if (index == transparent) continue;
      if (index >= map->ColorCount)
        throw IOError(what + "color index " + std::to_string(index) + " is outside the color map of " +
                      std::to_string(map->ColorCount) + " entries");
      uint8_t* px = out.data.data() + (sy * out.width + sx) * 3;
      px[0] = map->Colors[index].Red;
      px[1] = map->Colors[index].Green;
      px[2] = map->Colors[index].Blue;
    }
  }
  return out;
}

}  // namespace kiln::utils::image_codec
