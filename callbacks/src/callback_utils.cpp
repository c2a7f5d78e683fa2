#include "callback_utils.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kiln/core/error.h"
#include "kiln/training/model.h"

namespace kiln::callbacks::detail {

std::string python_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  // Shortest round-trip digits in scientific form: "-1.2345e-05".
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  const bool neg = s[0] == '-';
  if (neg) s.erase(0, 1);
  const auto epos = s.find('e');
  std::string mant = s.substr(0, epos);
  const int exp10 = std::atoi(s.c_str() + epos + 1);
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  // Python (float_repr_style 'short', repr mode): decpt = exp10 + 1 is where the
  // decimal point goes; scientific notation when decpt <= -4 or decpt > 16.
  const int decpt = exp10 + 1;
  std::string out;
  if (decpt <= -4 || decpt > 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char e[16];
    std::snprintf(e, sizeof(e), "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    out += e;
  } else if (decpt <= 0) {
    out = "0." + std::string(static_cast<std::size_t>(-decpt), '0') + digits;
  } else if (static_cast<std::size_t>(decpt) >= digits.size()) {
    out = digits + std::string(static_cast<std::size_t>(decpt) - digits.size(), '0') + ".0";
  } else {
    out = digits.substr(0, static_cast<std::size_t>(decpt)) + "." + digits.substr(static_cast<std::size_t>(decpt));
  }
  return neg ? "-" + out : out;
}

Optimizer& require_optimizer(Model* model, const char* who) {
  if (!model) throw ValueError(std::string(who) + ": no model is set (call set_model() or pass the callback to fit())");
  if (!model->optimizer())
    throw ValueError(std::string(who) + ": model '" + model->name() +
                     "' has no optimizer; compile() it before training with this callback");
  return *model->optimizer();
}

void throw_path_given_twice(const char* who, const char* name, const std::string& positional,
                            const std::string& in_options) {
  throw ValueError(std::string(who) + ": `" + name + "` was given twice, as the first argument ('" + positional +
                   "') and in the options ('" + in_options + "')");
}

}  // namespace kiln::callbacks::detail
