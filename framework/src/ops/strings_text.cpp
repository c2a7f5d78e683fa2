// Element-wise string ops: case, whitespace, lengths, substrings, regular
// expressions and joins, with tf.strings's semantics.
#include <algorithm>
#include <regex>

#include "core/check.h"
#include "core/tracing.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/strings.h"
#include "ops/op_util.h"
#include "ops/string_util.h"

namespace kiln::strings {

using detail::map_strings;
using detail::string_elements;

namespace detail {

const std::string* string_elements(const Tensor& t, const char* op) {
  // String ops compute on the host when called: a trace would keep this call's strings forever.
  tracing::check_value_read(op);
  ops::check_concrete(op, t);
  KILN_CHECK(t.dtype() == DType::string, TypeError,
             op << ": expected a string tensor, but received " << ops::describe(t));
  return t.data<std::string>();
}

Tensor map_strings(const Tensor& t, const char* op, const std::function<std::string(const std::string&)>& f) {
  const std::string* in = string_elements(t, op);
  Tensor out = Tensor::empty(t.shape(), DType::string);
  std::string* o = out.data<std::string>();
  for (int64_t i = 0; i < t.size(); ++i) o[i] = f(in[i]);
  return out;
}

CodePoint decode_utf8(const std::string& s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return {c, 1};
  int n = 0;
  int32_t cp = 0, min = 0;
  if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F, min = 0x80;
  else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F, min = 0x800;
  else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07, min = 0x10000;
  else return {0, 0};
  if (i + n > s.size()) return {0, 0};
  for (int k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return {0, 0};
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};
  return {cp, n};
}

void append_utf8(std::string& out, int64_t cp, const char* op) {
  if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    throw ValueError(std::string(op) + ": code point " + std::to_string(cp) + " is not a Unicode scalar value");
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

ValueError invalid_utf8(const char* op, int64_t index, std::size_t offset, const std::string& s) {
  return ValueError(std::string(op) + ": element " + std::to_string(index) + " is not valid UTF-8: the sequence at byte " +
                    std::to_string(offset) + " of its " + std::to_string(s.size()) + " bytes is invalid");
}

}  // namespace detail

namespace {

bool ascii_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// UTF-8 characters of s as (byte offset, byte length): a character starts at every
// byte that is not a continuation byte, so invalid sequences count as TF counts them.
std::vector<std::pair<std::size_t, std::size_t>> utf8_chars(const std::string& s) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 || out.empty()) out.emplace_back(i, 0);
    ++out.back().second;
  }
  return out;
}

void check_unit(const char* op, const std::string& unit) {
  if (unit != "BYTE" && unit != "UTF8_CHAR")
    throw ValueError(std::string(op) + ": unit must be \"BYTE\" or \"UTF8_CHAR\", but received \"" + unit + "\"");
}

// RE2's rewrite string (\1, \\) in ECMAScript's format ($1, $$).
std::string ecma_rewrite(const std::string& rewrite) {
  std::string out;
  for (std::size_t i = 0; i < rewrite.size(); ++i) {
    const char c = rewrite[i];
    if (c == '\\' && i + 1 < rewrite.size()) {
      const char n = rewrite[++i];
      if (n >= '1' && n <= '9') out += std::string("$") + n;
      else if (n == '0') out += "$&";
      else if (n == '\\') out += '\\';
      else
        throw ValueError("regex_replace: invalid rewrite pattern \"" + rewrite + "\": \\" + n +
                         " is neither a group (\\0 to \\9) nor \\\\");
    } else if (c == '$') {
      out += "$$";
    } else {
      out += c;
    }
  }
  return out;
}

std::regex compile_regex(const char* op, const std::string& pattern) {
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw ValueError(std::string(op) + ": invalid pattern \"" + pattern + "\": " + e.what());
  }
}

}  // namespace

namespace {
// ASCII letters from [first, first + 26) moved to the other case; other bytes kept.
Tensor ascii_case(const Tensor& input, const char* op, char first, char other) {
  return map_strings(input, op, [=](const std::string& s) {
    std::string r = s;
    for (char& c : r)
      if (c >= first && c < first + 26) c = static_cast<char>(c - first + other);
    return r;
  });
}
}  // namespace

Tensor lower(const Tensor& input) { return ascii_case(input, "strings.lower", 'A', 'a'); }
Tensor upper(const Tensor& input) { return ascii_case(input, "strings.upper", 'a', 'A'); }

Tensor strip(const Tensor& input) {
  return map_strings(input, "strings.strip", [](const std::string& s) {
    std::size_t b = 0, e = s.size();
    while (b < e && ascii_space(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && ascii_space(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
  });
}

Tensor length(const Tensor& input, const std::string& unit) {
  check_unit("strings.length", unit);
  const std::string* in = string_elements(input, "strings.length");
  Tensor out = Tensor::empty(input.shape(), DType::int32);
  int32_t* o = out.data<int32_t>();
  for (int64_t i = 0; i < input.size(); ++i)
    o[i] = static_cast<int32_t>(unit == "BYTE" ? in[i].size() : utf8_chars(in[i]).size());
  return out;
}

Tensor substr(const Tensor& input, int64_t pos, int64_t len, const std::string& unit) {
  check_unit("strings.substr", unit);
  if (len < 0) throw ValueError("strings.substr: len must be >= 0, but received " + std::to_string(len));
  return map_strings(input, "strings.substr", [&](const std::string& s) {
    const auto chars = unit == "UTF8_CHAR" ? utf8_chars(s) : std::vector<std::pair<std::size_t, std::size_t>>{};
    const int64_t n = unit == "BYTE" ? static_cast<int64_t>(s.size()) : static_cast<int64_t>(chars.size());
    const int64_t p = pos < 0 ? pos + n : pos;
    if (p < 0 || p > n)
      throw ValueError("strings.substr: pos " + std::to_string(pos) + " out of range for string b'" + s +
                       "' at index 0 (its length is " + std::to_string(n) + ")");
    const int64_t stop = std::min(n, p + len);
    if (unit == "BYTE") return s.substr(static_cast<std::size_t>(p), static_cast<std::size_t>(stop - p));
    if (p == stop) return std::string();
    const std::size_t b = chars[static_cast<std::size_t>(p)].first;
    const auto& last = chars[static_cast<std::size_t>(stop - 1)];
    return s.substr(b, last.first + last.second - b);
  });
}

Tensor regex_replace(const Tensor& input, const std::string& pattern, const std::string& rewrite, bool replace_global) {
  const std::regex re = compile_regex("strings.regex_replace", pattern);
  const std::string fmt = ecma_rewrite(rewrite);
  const auto flags = replace_global ? std::regex_constants::format_default : std::regex_constants::format_first_only;
  return map_strings(input, "strings.regex_replace",
                     [&](const std::string& s) { return std::regex_replace(s, re, fmt, flags); });
}

Tensor regex_full_match(const Tensor& input, const std::string& pattern) {
  const std::regex re = compile_regex("strings.regex_full_match", pattern);
  const std::string* in = string_elements(input, "strings.regex_full_match");
  Tensor out = Tensor::empty(input.shape(), DType::bool_);
  bool* o = out.data<bool>();
  for (int64_t i = 0; i < input.size(); ++i) o[i] = std::regex_match(in[i], re);
  return out;
}

Tensor join(const std::vector<Tensor>& inputs, const std::string& separator) {
  if (inputs.empty()) throw ValueError("strings.join: expected at least one input");
  Shape s = inputs[0].shape();
  for (const auto& t : inputs) {
    string_elements(t, "strings.join");
    s = broadcast_shapes(s, t.shape(), "strings.join");
  }
  std::vector<Tensor> b;
  for (const auto& t : inputs) b.push_back(broadcast_to(t, s));
  Tensor out = Tensor::empty(s, DType::string);
  std::string* o = out.data<std::string>();
  for (int64_t i = 0; i < out.size(); ++i)
    for (std::size_t k = 0; k < b.size(); ++k) o[i] += (k ? separator : std::string()) + b[k].data<std::string>()[i];
  return out;
}

Tensor reduce_join(const Tensor& input, std::optional<int> axis, bool keepdims, const std::string& separator) {
  string_elements(input, "strings.reduce_join");
  if (!axis) {
    Tensor flat = reshape(input, Shape{input.size()});
    Tensor r = reduce_join(flat, 0, false, separator);
    return keepdims ? reshape(r, Shape(std::vector<int64_t>(static_cast<std::size_t>(input.rank()), 1))) : r;
  }
  const int a = ops::normalize_axis("strings.reduce_join", *axis, input.rank());
  const auto& d = input.shape().dims();
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < a; ++k) outer *= d[k];
  for (std::size_t k = a + 1; k < d.size(); ++k) inner *= d[k];
  std::vector<int64_t> od = d;
  od[a] = 1;
  Tensor out = Tensor::empty(Shape(od), DType::string);
  const std::string* in = input.data<std::string>();
  std::string* o = out.data<std::string>();
  for (int64_t p = 0; p < outer; ++p)
    for (int64_t q = 0; q < inner; ++q)
      for (int64_t k = 0; k < d[a]; ++k) o[p * inner + q] += (k ? separator : std::string()) + in[(p * d[a] + k) * inner + q];
  return keepdims ? out : squeeze(out, std::vector<int>{a});
}

}  // namespace kiln::strings
