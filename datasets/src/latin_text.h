#pragma once
// Text helpers for word lists in European languages: decoding a line of UTF-8
// or ISO-8859-1 into code points, encoding back to UTF-8, and the lower-case
// mapping of the Latin letters (ASCII, Latin-1 Supplement, Latin Extended-A),
// which is what std::tolower cannot do for multi-byte characters.
#include <string>
#include <string_view>

namespace kiln::datasets::detail {

/// Whether `bytes` is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
bool is_valid_utf8(std::string_view bytes);

/// The code points of well-formed UTF-8 `bytes` (check is_valid_utf8 first).
std::u32string decode_utf8(std::string_view bytes);

/// The code points of ISO-8859-1 `bytes`: each byte is its own code point.
std::u32string decode_latin1(std::string_view bytes);

std::string encode_utf8(std::u32string_view text);

/// The lower-case form of a Latin letter; any other code point unchanged.
char32_t to_lower(char32_t c);

/// Whether `c` is a Latin letter in lower case (a-z, ß, à-ÿ, the lower half of Latin Extended-A).
bool is_lower_letter(char32_t c);

}  // namespace kiln::datasets::detail
