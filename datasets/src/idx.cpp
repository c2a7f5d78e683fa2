#include "kiln/datasets/idx.h"

#include <bit>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "binary_io.h"
#include "kiln/core/error.h"
#include "kiln/core/limits.h"
#include "kiln/core/shape.h"

namespace kiln::datasets {

namespace {

using detail::ByteView;
using detail::fail;

// The IDX type codes (third magic byte) from the MNIST page.
enum IdxType : uint8_t {
  kUByte = 0x08,
  kSByte = 0x09,
  kShort = 0x0B,
  kInt = 0x0C,
  kFloat = 0x0D,
  kDouble = 0x0E,
};

std::size_t element_size(uint8_t type) {
  switch (type) {
    case kUByte: case kSByte: return 1;
    case kShort: return 2;
    case kInt: case kFloat: return 4;
    case kDouble: return 8;
    default: return 0;
  }
}

const char* type_name(uint8_t type) {
  switch (type) {
    case kUByte: return "ubyte";
    case kSByte: return "sbyte";
    case kShort: return "int16";
    case kInt: return "int32";
    case kFloat: return "float32";
    case kDouble: return "float64";
    default: return "unknown";
  }
}

std::string hex32(ByteView b) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%02x%02x%02x%02x", b[0], b[1], b[2], b[3]);
  return buf;
}

struct IdxHeader {
  uint8_t type = 0;
  std::vector<int64_t> dims;
  std::size_t data_offset = 0;
  std::size_t count = 0;  // number of elements
};

// Validates everything the header promises against the bytes present, so
// the decoders below can index without further checks.
IdxHeader parse_header(ByteView b, const std::string& src) {
  if (b.size() < 4)
    fail(src, "truncated IDX file: " + std::to_string(b.size()) + " bytes, too short for the 4-byte magic number");
  if (b[0] != 0 || b[1] != 0)
    fail(src, "bad IDX magic number " + hex32(b) + ": the first two bytes must be zero (not an IDX file?)");
  IdxHeader h;
  h.type = b[2];
  const std::size_t elem = element_size(h.type);
  if (elem == 0) {
    char code[8];
    std::snprintf(code, sizeof code, "0x%02x", h.type);
    fail(src, "bad IDX magic number " + hex32(b) + ": unknown type code " + code +
                  " (expected 0x08 ubyte, 0x09 sbyte, 0x0b short, 0x0c int, 0x0d float or 0x0e double)");
  }
  const std::size_t rank = b[3];
  h.data_offset = 4 + 4 * rank;
  if (b.size() < h.data_offset)
    fail(src, "truncated IDX file: magic " + hex32(b) + " announces " + std::to_string(rank) + " dimensions (" +
                  std::to_string(h.data_offset) + " header bytes) but the file has " + std::to_string(b.size()) + " bytes");
  for (std::size_t i = 0; i < rank; ++i) h.dims.push_back(static_cast<int64_t>(detail::load_be(&b[4 + 4 * i], 4)));
  h.count = detail::checked_count(h.dims, elem, src);
  const std::size_t need = h.count * elem, have = b.size() - h.data_offset;
  if (have < need)
    fail(src, "truncated IDX file: header says shape " + detail::dims_string(h.dims) + " of " + type_name(h.type) +
                  " (" + std::to_string(need) + " data bytes) but only " + std::to_string(have) + " follow");
  if (have > need)
    fail(src, "corrupt IDX file: " + std::to_string(have - need) + " unexpected bytes after the data of shape " +
                  detail::dims_string(h.dims) + " (wrong dimensions in the header?)");
  check_declared_size(need, have, src);  // the ceiling: the file may really be this large
  return h;
}

template <std::size_t N> struct uint_of_size;
template <> struct uint_of_size<1> { using type = uint8_t; };
template <> struct uint_of_size<2> { using type = uint16_t; };
template <> struct uint_of_size<4> { using type = uint32_t; };
template <> struct uint_of_size<8> { using type = uint64_t; };

// IDX stores every element big-endian; decode each Src and convert to Dst.
template <class Src, class Dst>
std::vector<Dst> decode(ByteView b, const IdxHeader& h) {
  const uint8_t* p = b.data() + h.data_offset;
  if constexpr (std::is_same_v<Src, uint8_t> && std::is_same_v<Dst, uint8_t>) {
    return std::vector<uint8_t>(p, p + h.count);  // images: a plain copy
  } else {
    using U = typename uint_of_size<sizeof(Src)>::type;
    std::vector<Dst> out(h.count);
    for (std::size_t i = 0; i < h.count; ++i)
      out[i] = static_cast<Dst>(std::bit_cast<Src>(static_cast<U>(detail::load_be(p + i * sizeof(Src), sizeof(Src)))));
    return out;
  }
}

Tensor to_tensor(ByteView b, const IdxHeader& h) {
  const Shape shape(h.dims);
  switch (h.type) {
    case kUByte: return Tensor(decode<uint8_t, uint8_t>(b, h), shape);
    case kSByte: return Tensor(decode<int8_t, int32_t>(b, h), shape);
    case kShort: return Tensor(decode<int16_t, int32_t>(b, h), shape);
    case kInt: return Tensor(decode<int32_t, int32_t>(b, h), shape);
    case kFloat: return Tensor(decode<float, float>(b, h), shape);
    default: return Tensor(decode<double, double>(b, h), shape);  // kDouble; parse_header rejected the rest
  }
}

// Labels become int64 whatever their stored integer type, as Keras's are
// used with sparse losses and Kiln's sparse losses take int64 indices.
std::vector<int64_t> labels_as_int64(ByteView b, const IdxHeader& h, const std::string& src) {
  switch (h.type) {
    case kUByte: return decode<uint8_t, int64_t>(b, h);
    case kSByte: return decode<int8_t, int64_t>(b, h);
    case kShort: return decode<int16_t, int64_t>(b, h);
    case kInt: return decode<int32_t, int64_t>(b, h);
    default:
      fail(src, std::string("labels must be integers, but the IDX type is ") + type_name(h.type));
  }
}

}  // namespace

Tensor parse_idx(std::span<const uint8_t> bytes, const std::string& source) {
  return to_tensor(bytes, parse_header(bytes, source));
}

Tensor load_idx(const std::string& path) {
  const detail::Bytes bytes = detail::read_file(path, /*gunzip=*/true);
  return parse_idx(bytes, path);
}

Split load_idx_split(const std::string& images_path, const std::string& labels_path) {
  const detail::Bytes xb = detail::read_file(images_path, /*gunzip=*/true);
  const IdxHeader xh = parse_header(xb, images_path);
  if (xh.dims.empty()) fail(images_path, "expected an image file with one example per row, got a scalar IDX file");

  // Read the labels before decoding the images: a bad label file is cheap to
  // detect and should not cost a 47 MB copy first.
  const detail::Bytes yb = detail::read_file(labels_path, /*gunzip=*/true);
  const IdxHeader yh = parse_header(yb, labels_path);
  if (yh.dims.size() != 1)
    fail(labels_path, "expected a rank-1 label file (magic 0x00000801), got shape " + detail::dims_string(yh.dims) +
                          " (images and labels swapped?)");
  if (yh.dims[0] != xh.dims[0])
    fail(labels_path, "holds " + std::to_string(yh.dims[0]) + " labels but '" + images_path + "' holds " +
                          std::to_string(xh.dims[0]) + " images");
  std::vector<int64_t> y = labels_as_int64(yb, yh, labels_path);
  return Split{to_tensor(xb, xh), Tensor(y, Shape{yh.dims[0]})};
}

}  // namespace kiln::datasets
