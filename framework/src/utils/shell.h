#pragma once
// Running the external tools the plots use (Graphviz's dot, rsvg-convert).
#include <cstdlib>
#include <string>

namespace kiln::utils::detail {

/// `s` in single quotes for /bin/sh, any single quote in it escaped.
inline std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

/// Whether `name` is a program on the PATH.
inline bool has_program(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace kiln::utils::detail
