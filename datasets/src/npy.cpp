#include "kiln/datasets/npy.h"

#include <bit>
#include <cctype>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "binary_io.h"
#include "kiln/core/error.h"
#include "kiln/core/limits.h"
#include "kiln/core/shape.h"

namespace kiln::datasets {

namespace {

using detail::fail;

constexpr std::string_view kMagic = "\x93NUMPY";

// What the header dict says. np.lib.format writes it with repr(), e.g.
//   {'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// A recursive-descent parser for exactly the Python literals that appear in
// the header: a dict of quoted keys to a quoted string, True/False, or a
// tuple of integers. Anything else (structured dtypes are lists) is refused.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& source) : s_(text), src_(source) {}

  NpyHeader parse() {
    NpyHeader h;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (!peek('}')) {
      const std::string key = quoted();
      expect(':');
      if (key == "descr") {
        if (!peek('\'') && !peek('"'))
          bad("structured dtypes (a list 'descr') are not supported; only plain numeric arrays");
        h.descr = quoted();
        have_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        have_order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        have_shape = true;
      } else {
        bad("unexpected key '" + key + "' in the header");
      }
      if (!peek('}')) expect(',');
    }
    expect('}');
    if (!have_descr || !have_order || !have_shape)
      bad("the header lacks one of 'descr', 'fortran_order', 'shape'");
    return h;
  }

 private:
  [[noreturn]] void bad(const std::string& what) const {
    fail(src_, "bad .npy header: " + what + " (header: " + std::string(s_) + ")");
  }
  void skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool peek(char c) {
    skip_ws();
    return i_ < s_.size() && s_[i_] == c;
  }
  void expect(char c) {
    if (!peek(c)) bad(std::string("expected '") + c + "' at character " + std::to_string(i_));
    ++i_;
  }
  std::string quoted() {
    skip_ws();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) bad("expected a quoted string at character " + std::to_string(i_));
    const char q = s_[i_++];
    const std::size_t end = s_.find(q, i_);
    if (end == std::string_view::npos) bad("unterminated string");
    std::string out(s_.substr(i_, end - i_));
    i_ = end + 1;
    return out;
  }
  bool boolean() {
    skip_ws();
    if (s_.substr(i_, 4) == "True") return i_ += 4, true;
    if (s_.substr(i_, 5) == "False") return i_ += 5, false;
    bad("expected True or False for 'fortran_order'");
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    while (!peek(')')) {
      skip_ws();
      int64_t v = 0;
      std::size_t digits = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) bad("dimension too large");
        v = v * 10 + (s_[i_++] - '0');
        ++digits;
      }
      // Python 2 era files may write long integers as "3L".
      if (i_ < s_.size() && s_[i_] == 'L') ++i_;
      if (digits == 0) bad("expected a non-negative integer in 'shape'");
      dims.push_back(v);
      if (!peek(')')) expect(',');
    }
    expect(')');
    return dims;
  }

  std::string_view s_;
  const std::string& src_;
  std::size_t i_ = 0;
};

template <std::size_t N> struct npy_uint;
template <> struct npy_uint<1> { using type = uint8_t; };
template <> struct npy_uint<2> { using type = uint16_t; };
template <> struct npy_uint<4> { using type = uint32_t; };
template <> struct npy_uint<8> { using type = uint64_t; };

// Decodes `count` elements of type Src stored with the given byte order and
// converts each to Dst (the widening described in npy.h).
template <class Src, class Dst>
std::vector<Dst> decode_npy(const uint8_t* p, std::size_t count, bool big_endian, const std::string& source) {
  using U = typename npy_uint<sizeof(Src)>::type;
  if constexpr (std::is_same_v<Src, uint8_t> && std::is_same_v<Dst, uint8_t>) {
    return std::vector<uint8_t>(p, p + count);  // the common image case: a plain copy
  }
  std::vector<Dst> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    const uint8_t* e = p + i * sizeof(Src);
    const auto bits = static_cast<U>(big_endian ? detail::load_be(e, sizeof(Src)) : detail::load_le(e, sizeof(Src)));
    const Src v = std::bit_cast<Src>(bits);
    if constexpr (std::is_same_v<Src, uint64_t>) {
      // Kiln has no uint64; refuse values that would wrap rather than corrupt them.
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        fail(source, "uint64 value " + std::to_string(v) + " at index " + std::to_string(i) +
                         " does not fit in int64");
    }
    if constexpr (std::is_same_v<Dst, bool>) {
      if (v > 1) fail(source, "bool element " + std::to_string(i) + " has byte value " + std::to_string(v));
    }
    out[i] = static_cast<Dst>(v);
  }
  return out;
}

// np.save writes a Fortran-ordered array column-major. Kiln tensors are
// row-major, so permute: the C-order element with multi-index (i0..ik) lives
// at F-offset i0 + d0*(i1 + d1*(i2 + ...)).
template <class T>
std::vector<T> fortran_to_c(const std::vector<T>& f, const std::vector<int64_t>& dims) {
  const std::size_t rank = dims.size();
  if (rank < 2 || f.empty()) return f;
  std::vector<std::size_t> f_stride(rank);
  std::size_t s = 1;
  for (std::size_t k = 0; k < rank; ++k) {
    f_stride[k] = s;
    s *= static_cast<std::size_t>(dims[k]);
  }
  std::vector<T> c(f.size());
  std::vector<int64_t> idx(rank, 0);
  std::size_t f_off = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    c[i] = f[f_off];
    // Odometer increment over the C-order index, last axis fastest.
    for (std::size_t k = rank; k-- > 0;) {
      if (++idx[k] < dims[k]) {
        f_off += f_stride[k];
        break;
      }
      f_off -= static_cast<std::size_t>(idx[k] - 1) * f_stride[k];
      idx[k] = 0;
    }
  }
  return c;
}

template <class Src, class Dst>
Tensor make(const uint8_t* p, const NpyHeader& h, std::size_t count, bool big_endian, const std::string& source) {
  std::vector<Dst> v = decode_npy<Src, Dst>(p, count, big_endian, source);
  if (h.fortran_order) v = fortran_to_c(v, h.shape);
  return Tensor(v, Shape(h.shape));
}

}  // namespace

Tensor parse_npy(std::span<const uint8_t> b, const std::string& source) {
  if (b.size() < 10 || std::string_view(reinterpret_cast<const char*>(b.data()), kMagic.size()) != kMagic)
    fail(source, "not a .npy file (missing the \\x93NUMPY magic string)");
  const int major = b[6];
  // Version 1 has a 2-byte header length; versions 2 and 3 (for headers over
  // 64 KiB and for UTF-8 headers) have a 4-byte one.
  std::size_t len_bytes = 0;
  if (major == 1) len_bytes = 2;
  else if (major == 2 || major == 3) len_bytes = 4;
  else fail(source, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(b[7]));
  const std::size_t header_start = 8 + len_bytes;
  if (b.size() < header_start) fail(source, "truncated .npy header");
  const std::size_t header_len = detail::load_le(b.data() + 8, len_bytes);
  if (b.size() - header_start < header_len)
    fail(source, "truncated .npy header: it says " + std::to_string(header_len) + " bytes but only " +
                     std::to_string(b.size() - header_start) + " follow");
  const std::string_view text(reinterpret_cast<const char*>(b.data() + header_start), header_len);
  const NpyHeader h = HeaderParser(text, source).parse();

  // descr = <byte order><kind><item size>, e.g. '<i8', '|u1', '>f4'.
  const std::string& d = h.descr;
  if (d.size() < 3 || std::string_view("<>|=").find(d[0]) == std::string_view::npos)
    fail(source, "unsupported .npy dtype '" + d + "'");
  const bool big = d[0] == '>' || (d[0] == '=' && std::endian::native == std::endian::big);
  const char kind = d[1];
  const std::string size = d.substr(2);
  const std::size_t item = size == "1" ? 1 : size == "2" ? 2 : size == "4" ? 4 : size == "8" ? 8 : 0;
  if (item == 0) fail(source, "unsupported .npy dtype '" + d + "'");

  const std::size_t count = detail::checked_count(h.shape, item, source);
  const std::size_t data_start = header_start + header_len;
  const std::size_t have = b.size() - data_start;
  if (have != count * item)
    fail(source, std::string(have < count * item ? "truncated" : "corrupt") + " .npy data: shape " +
                     detail::dims_string(h.shape) + " of '" + d + "' needs " + std::to_string(count * item) +
                     " bytes but " + std::to_string(have) + " follow the header");
  check_declared_size(count * item, have, source);  // the ceiling: the file may really be this large
  const uint8_t* p = b.data() + data_start;

  switch (kind) {
    case 'b':
      if (item == 1) return make<uint8_t, bool>(p, h, count, big, source);
      break;
    case 'u':
      if (item == 1) return make<uint8_t, uint8_t>(p, h, count, big, source);
      if (item == 2) return make<uint16_t, int32_t>(p, h, count, big, source);
      if (item == 4) return make<uint32_t, int64_t>(p, h, count, big, source);
      return make<uint64_t, int64_t>(p, h, count, big, source);
    case 'i':
      if (item == 1) return make<int8_t, int32_t>(p, h, count, big, source);
      if (item == 2) return make<int16_t, int32_t>(p, h, count, big, source);
      if (item == 4) return make<int32_t, int32_t>(p, h, count, big, source);
      return make<int64_t, int64_t>(p, h, count, big, source);
    case 'f':
      if (item == 4) return make<float, float>(p, h, count, big, source);
      if (item == 8) return make<double, double>(p, h, count, big, source);
      break;
    default:
      break;
  }
  fail(source, "unsupported .npy dtype '" + d +
                   "' (supported: b1, u1, u2, u4, u8, i1, i2, i4, i8, f4, f8 in either byte order)");
}

Tensor load_npy(const std::string& path) {
  const detail::Bytes bytes = detail::read_file(path, /*gunzip=*/false);
  return parse_npy(bytes, path);
}

}  // namespace kiln::datasets
