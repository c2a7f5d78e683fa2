#pragma once
// Private: numbers in messages and generated text, as Python prints them.
// std::to_string(1.5) gives "1.500000" and std::to_string(1e-7) "0.000000";
// the shortest text that reads back as the same value ("1.5", "1e-07") is
// what Keras's messages show and what a user typed.
#include <charconv>
#include <cmath>
#include <string>

namespace kiln::detail {

/// The shortest decimal text that round-trips to `v` ("1.5", "0.1", "1e-07",
/// "3.0" for a whole number, as Python's repr), "nan", "inf" or "-inf".
inline std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  // to_chars writes 3 for 3.0 and 1e-07 for 1e-7; Python writes 3.0 and 1e-07.
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

/// The same for a float: the shortest text that reads back as the same float
/// (0.1f prints as "0.1", not "0.10000000149011612").
inline std::string number_text(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

}  // namespace kiln::detail
