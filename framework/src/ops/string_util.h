#pragma once
// Private helpers of the string ops: typed access with the op's name in errors,
// element-wise maps, and UTF-8 decoding that reports where a sequence is invalid.
#include <cstdint>
#include <functional>
#include <string>

#include "kiln/core/error.h"
#include "kiln/core/tensor.h"

namespace kiln::strings::detail {

/// The elements of a concrete string tensor; TypeError naming `op` for any other dtype.
const std::string* string_elements(const Tensor& t, const char* op);
/// A string tensor of t's shape with f applied to each element.
Tensor map_strings(const Tensor& t, const char* op, const std::function<std::string(const std::string&)>& f);

/// The code point starting at s[i] and its length in bytes; length 0 for an invalid
/// sequence (bad lead byte, missing or bad continuation, overlong, surrogate, > U+10FFFF).
struct CodePoint {
  int32_t value;  ///< The code point.
  int bytes;      ///< Its encoded length; 0 when invalid.
};
CodePoint decode_utf8(const std::string& s, std::size_t i);
/// Appends the UTF-8 encoding of cp; ValueError naming `op` outside [0, 0x10FFFF] or for a surrogate.
void append_utf8(std::string& out, int64_t cp, const char* op);
/// The error for invalid UTF-8 in element `index` at byte `offset`.
ValueError invalid_utf8(const char* op, int64_t index, std::size_t offset, const std::string& s);

}  // namespace kiln::strings::detail
