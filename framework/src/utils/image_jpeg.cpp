// JPEG decoding and encoding through libjpeg (libjpeg-turbo on Debian).
//
// libjpeg reports fatal errors through error_exit, whose default calls exit().
// Here error_exit formats the message and longjmps back to the setjmp in the
// same function that called libjpeg, so only libjpeg's own C frames are skipped;
// that function then throws IOError. A truncated stream is only a warning to
// libjpeg (it pads the image with gray); it is an error here, as in TF's decoder.
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <jpeglib.h>
#include <jerror.h>

#include "kiln/core/error.h"
#include "utils/image_codec.h"

namespace kiln::utils::image_codec {
namespace {

struct JpegErrors {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_fail(j_common_ptr info) {
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  (*info->err->format_message)(info, errors->message);
  std::longjmp(errors->jump, 1);
}

void jpeg_warn(j_common_ptr info, int level) {
  // Level -1 is a warning about corrupt data; premature end of data (a truncated file) is fatal here.
  if (level == -1 && info->err->msg_code == JWRN_JPEG_EOF) jpeg_fail(info);
}

void install_errors(JpegErrors& errors) {
  jpeg_std_error(&errors.mgr);
  errors.mgr.error_exit = jpeg_fail;
  errors.mgr.emit_message = jpeg_warn;
  errors.message[0] = '\0';
}

}  // namespace

Pixels decode_jpeg(const std::vector<uint8_t>& bytes, bool want_gray, const std::string& path, bool fast_dct) {
  Pixels out;
  jpeg_decompress_struct info;
  JpegErrors errors;
  info.err = &errors.mgr;
  install_errors(errors);
  if (setjmp(errors.jump)) {
    jpeg_destroy_decompress(&info);
    throw IOError("cannot decode the JPEG image '" + path + "': " + errors.message);
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&info, TRUE);
  info.out_color_space = want_gray ? JCS_GRAYSCALE : JCS_RGB;
  info.dct_method = fast_dct ? JDCT_IFAST : JDCT_ISLOW;
  jpeg_start_decompress(&info);
  out.height = info.output_height;
  out.width = info.output_width;
  out.channels = info.output_components;
  out.data.resize(static_cast<std::size_t>(out.height * out.width * out.channels));
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = out.data.data() + static_cast<std::size_t>(info.output_scanline) * out.width * out.channels;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return out;
}

std::vector<uint8_t> encode_jpeg(const Pixels& image, int quality, const std::string& path) {
  if (image.channels != 1 && image.channels != 3)
    throw ValueError("save_img: JPEG holds 1 or 3 channels; received an image of " +
                     std::to_string(image.channels) + " channels for '" + path + "'");
  jpeg_compress_struct info;
  JpegErrors errors;
  info.err = &errors.mgr;
  install_errors(errors);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  if (setjmp(errors.jump)) {
    jpeg_destroy_compress(&info);
    std::free(buffer);
    throw IOError("cannot encode the JPEG image '" + path + "': " + errors.message);
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, &buffer, &size);
  info.image_width = static_cast<JDIMENSION>(image.width);
  info.image_height = static_cast<JDIMENSION>(image.height);
  info.input_components = static_cast<int>(image.channels);
  info.in_color_space = image.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    auto* row = const_cast<JSAMPROW>(image.data.data() +
                                     static_cast<std::size_t>(info.next_scanline) * image.width * image.channels);
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  std::vector<uint8_t> out(buffer, buffer + size);
  jpeg_destroy_compress(&info);
  std::free(buffer);
  return out;
}

}  // namespace kiln::utils::image_codec
