#pragma once
// Private: numbers in messages and generated text, as Python prints them.
// std::to_string(1.5) gives "1.500000" and std::to_string(1e-7) "0.000000";
// the shortest text that reads back as the same value ("1.5", "1e-07") is
// what Keras's messages show and what a user typed.
#include <charconv>
#include <cmath>
#include <string>

namespace kiln::detail {

/// The shortest decimal text that reads back as the same `v` ("1.5", "0.1",
/// "1e-07", "3.0" for a whole number, as Python's repr), "nan", "inf" or "-inf".
/// For a float, the same float: 0.1f prints as "0.1", not "0.10000000149011612".
template <class T>
std::string shortest_number_text(T v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  // to_chars writes 3 for 3.0; Python writes 3.0.
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

/// shortest_number_text(v) for a double.
inline std::string number_text(double v) { return shortest_number_text(v); }
/// shortest_number_text(v) for a float.
inline std::string number_text(float v) { return shortest_number_text(v); }

}  // namespace kiln::detail
