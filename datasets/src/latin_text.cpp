#include "latin_text.h"

#include <cstdint>

namespace kiln::datasets::detail {

namespace {

// The length of the UTF-8 sequence that lead byte `b` starts, 0 for a byte that cannot lead one.
int sequence_length(unsigned char b) {
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) return 2;
  if (b >= 0xE0 && b <= 0xEF) return 3;
  if (b >= 0xF0 && b <= 0xF4) return 4;
  return 0;
}

// Decodes the sequence at s[i] of length n into a code point, or returns -1 when it is malformed.
int64_t decode_at(std::string_view s, std::size_t i, int n) {
  if (i + static_cast<std::size_t>(n) > s.size()) return -1;
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (n == 1) return b0;
  static constexpr unsigned char kLeadMask[5] = {0, 0, 0x1F, 0x0F, 0x07};
  int64_t cp = b0 & kLeadMask[n];
  for (int k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
    if ((b & 0xC0) != 0x80) return -1;
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr int64_t kMinimum[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinimum[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  return cp;
}

// Latin Extended-A pairs upper and lower case as (even, odd) in most ranges,
// and as (odd, even) in U+0139-U+0148 and U+0179-U+017E.
bool odd_is_upper(char32_t c) { return (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E); }
bool in_paired_range(char32_t c) {
  return (c >= 0x100 && c <= 0x137) || (c >= 0x139 && c <= 0x148) || (c >= 0x14A && c <= 0x177) ||
         (c >= 0x179 && c <= 0x17E);
}

}  // namespace

bool is_valid_utf8(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size();) {
    const int n = sequence_length(static_cast<unsigned char>(bytes[i]));
    if (n == 0 || decode_at(bytes, i, n) < 0) return false;
    i += static_cast<std::size_t>(n);
  }
  return true;
}

std::u32string decode_utf8(std::string_view bytes) {
  std::u32string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    const int n = sequence_length(static_cast<unsigned char>(bytes[i]));
    const int64_t cp = n == 0 ? -1 : decode_at(bytes, i, n);
    out.push_back(cp < 0 ? U'\uFFFD' : static_cast<char32_t>(cp));
    i += static_cast<std::size_t>(n == 0 || cp < 0 ? 1 : n);
  }
  return out;
}

std::u32string decode_latin1(std::string_view bytes) {
  std::u32string out;
  out.reserve(bytes.size());
  for (char b : bytes) out.push_back(static_cast<unsigned char>(b));
  return out;
}

std::string encode_utf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : text) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

char32_t to_lower(char32_t c) {
  if (c >= U'A' && c <= U'Z') return c + 32;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;  // À-Þ, not ×
  if (c == 0x130) return U'i';                              // İ
  if (c == 0x178) return 0xFF;                              // Ÿ
  if (in_paired_range(c)) {
    const bool is_upper = ((c & 1U) == 1U) == odd_is_upper(c);
    return is_upper ? c + 1 : c;
  }
  return c;
}

bool is_lower_letter(char32_t c) {
  if (c >= U'a' && c <= U'z') return true;
  if (c >= 0xDF && c <= 0xFF) return c != 0xF7;  // ß-ÿ, not ÷
  if (c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F) return true;  // ı ĸ ŉ ſ have no pair here
  return in_paired_range(c) && to_lower(c) == c;
}

}  // namespace kiln::datasets::detail
