// Tensor text as TF prints an eager tensor: "tf.Tensor(" + NumPy's str() of
// the value + ", shape=..., dtype=...)", where the value starts on a new line
// whenever it spans several. The array text follows numpy.array2string with its
// default options (precision 8, threshold 1000, edgeitems 3, linewidth 75,
// floatmode "maxprec"), so the TF guides' printed values read back exactly.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "core/tensor_impl.h"
#include "core/tracing.h"
#include "kiln/core/tensor.h"

namespace kiln {

std::vector<int64_t> contiguous_strides(const Shape& s);

namespace {
constexpr int kPrecision = 8;        // NumPy's default print precision
constexpr int64_t kThreshold = 1000;  // more elements than this are summarised
constexpr int64_t kEdgeItems = 3;     // elements kept at each end of a summarised axis
constexpr std::size_t kLineWidth = 75;

// std::to_chars for the 16-bit floats: the shortest digits that read back as
// the same 16-bit value, as NumPy prints float16.
template <class T>
std::to_chars_result chars(char* first, char* last, T v, std::chars_format fmt) {
  if constexpr (is_half_type_v<T>) {
    const float f = static_cast<float>(v);
    for (int p = 0;; ++p) {
      auto r = std::to_chars(first, last, f, fmt, p);
      float back = 0;
      std::from_chars(first, r.ptr, back, fmt);
      if (T(back).bits == v.bits || p >= 24) return r;
    }
  } else {
    return std::to_chars(first, last, v, fmt);
  }
}
template <class T>
std::to_chars_result chars(char* first, char* last, T v, std::chars_format fmt, int precision) {
  if constexpr (is_half_type_v<T>) return std::to_chars(first, last, static_cast<float>(v), fmt, precision);
  else return std::to_chars(first, last, v, fmt, precision);
}
template <class T>
inline constexpr bool is_float_v = std::is_floating_point_v<T> || is_half_type_v<T>;

// The shortest text that reads back as v (in v's own type), rounded to at most
// kPrecision digits after the point, like NumPy's dragon4 with unique=True.
template <class T>
std::string shortest(T v, std::chars_format fmt) {
  char buf[128];
  auto r = chars(buf, buf + sizeof buf, v, fmt);
  std::string s(buf, r.ptr);
  const auto dot = s.find('.');
  const auto end = s.find('e') == std::string::npos ? s.size() : s.find('e');
  if (dot != std::string::npos && end - dot - 1 > static_cast<std::size_t>(kPrecision)) {
    r = chars(buf, buf + sizeof buf, v, fmt, kPrecision);
    s.assign(buf, r.ptr);
    auto e = s.find('e') == std::string::npos ? s.size() : s.find('e');
    auto last = s.find_last_not_of('0', e - 1);
    s.erase(last + 1, e - last - 1);
  }
  if (s.find('.') == std::string::npos) s.insert(s.find('e') == std::string::npos ? s.size() : s.find('e'), ".");
  return s;
}

// NumPy's FloatingFormat: one layout (fixed or scientific, padding) for all the shown values.
template <class T>
std::function<std::string(T)> float_format(const std::vector<T>& vals) {
  std::vector<T> finite;
  for (T v : vals)
    if (std::isfinite(v)) finite.push_back(v);
  bool exp = false;
  double mx = 0, mn = 0;
  bool any_nonzero = false;
  for (T v : finite) {
    if (v == 0) continue;
    double a = std::abs(static_cast<double>(v));
    mx = any_nonzero ? std::max(mx, a) : a;
    mn = any_nonzero ? std::min(mn, a) : a;
    any_nonzero = true;
  }
  if (any_nonzero) exp = mx >= 1e8 || mn < 1e-4 || mx / mn > 1e3;
  std::size_t pad_left = 0, pad_right = 0, exp_size = 0, precision = 0;
  for (T v : finite) {
    std::string s = shortest(v, exp ? std::chars_format::scientific : std::chars_format::fixed);
    const auto dot = s.find('.'), e = s.find('e');
    pad_left = std::max(pad_left, dot);
    const std::size_t frac = (e == std::string::npos ? s.size() : e) - dot - 1;
    if (exp) {
      precision = std::max(precision, frac);
      exp_size = std::max(exp_size, s.size() - e - 2);  // digits after "e+"
    } else {
      pad_right = std::max(pad_right, frac);
    }
  }
  if (exp) pad_right = exp_size + 2 + precision;
  if (finite.size() != vals.size()) {
    bool neg_inf = std::any_of(vals.begin(), vals.end(), [](T v) { return std::isinf(v) && v < 0; });
    const std::size_t offset = pad_right + 1;
    const std::size_t inf_len = 3 + (neg_inf ? 1 : 0);
    pad_left = std::max({pad_left, offset < 3 ? 3 - offset : 0, offset < inf_len ? inf_len - offset : 0});
  }
  return [=](T v) -> std::string {
    if (!std::isfinite(v)) {
      std::string r = std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
      return std::string(pad_left + pad_right + 1 - std::min(r.size(), pad_left + pad_right + 1), ' ') + r;
    }
    std::string s = shortest(v, exp ? std::chars_format::scientific : std::chars_format::fixed);
    const auto dot = s.find('.');
    std::string out = std::string(pad_left - std::min(pad_left, dot), ' ');
    if (!exp) {
      const std::size_t frac = s.size() - dot - 1;
      return out + s + std::string(pad_right - std::min(pad_right, frac), ' ');
    }
    if (s.find('e') - dot - 1 < precision) {
      // NumPy's min_digits: the extra digits are the value's own (0.9998766f
      // prints 9.9987662e-01 beside 8-digit values), not zeros.
      char buf[64];
      auto r = chars(buf, buf + sizeof buf, v, std::chars_format::scientific, static_cast<int>(precision));
      s.assign(buf, r.ptr);
    }
    const auto e = s.find('e');
    std::string mant = s.substr(0, e);
    std::string digits = s.substr(e + 2);
    digits.insert(0, exp_size - std::min(exp_size, digits.size()), '0');
    return out + mant + "e" + s[e + 1] + digits;
  };
}

// One element's text at a common width (NumPy's IntegerFormat, BoolFormat, FloatingFormat).
// ml_dtypes' bfloat16 (what TF prints through) formats each element on its
// own, as C's "%g" does, with no common width.
inline std::string bfloat16_text(bfloat16_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(static_cast<float>(v)));
  return buf;
}

// Python's repr of a bytes object, as NumPy prints each element of a string
// tensor: b'...' (b"..." when only that avoids escaping a quote), \xhh for
// bytes outside printable ASCII.
std::string bytes_repr(const std::string& b) {
  const bool dq = b.find('\'') != std::string::npos && b.find('"') == std::string::npos;
  const char quote = dq ? '"' : '\'';
  std::string s = "b";
  s += quote;
  for (unsigned char c : b) {
    if (c == quote || c == '\\') s += {'\\', static_cast<char>(c)};
    else if (c == '\t') s += "\\t";
    else if (c == '\n') s += "\\n";
    else if (c == '\r') s += "\\r";
    else if (c < 0x20 || c >= 0x7f) {
      static const char* hex = "0123456789abcdef";
      s += {'\\', 'x', hex[c >> 4], hex[c & 15]};
    } else {
      s += static_cast<char>(c);
    }
  }
  return s + quote;
}

template <class T>
std::function<std::string(T)> element_format(const std::vector<T>& vals) {
  if constexpr (std::is_same_v<T, std::string>) {
    return [](const T& v) { return bytes_repr(v); };  // NumPy pads no string to a common width
  } else if constexpr (std::is_same_v<T, bfloat16_t>) {
    return [](T v) { return bfloat16_text(v); };
  } else if constexpr (std::is_same_v<T, bool>) {
    return [](T v) { return std::string(v ? " True" : "False"); };
  } else if constexpr (is_float_v<T>) {
    return float_format(vals);
  } else {
    std::size_t width = 0;
    for (T v : vals) width = std::max(width, std::to_string(static_cast<long long>(v)).size());
    return [width](T v) {
      std::string s = std::to_string(static_cast<long long>(v));
      return std::string(width - std::min(width, s.size()), ' ') + s;
    };
  }
}

// A 0-d tensor prints as the NumPy scalar: "5.5", "10.0", "1e-05", "True".
template <class T>
std::string scalar_text(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return bytes_repr(v);
  } else if constexpr (std::is_same_v<T, bfloat16_t>) {
    return bfloat16_text(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";
  } else if constexpr (is_float_v<T>) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    const double a = std::abs(static_cast<double>(v));
    char buf[64];
    if (a != 0 && (a < 1e-4 || a >= 1e16)) {
      auto r = chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
      return std::string(buf, r.ptr);
    }
    auto r = chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
    std::string s(buf, r.ptr);
    return s.find('.') == std::string::npos ? s + ".0" : s;
  } else {
    return std::to_string(static_cast<long long>(v));
  }
}

template <class T>
struct ArrayText {
  const T* p;
  const Shape& shape;
  std::vector<int64_t> strides;
  bool summarize;
  std::function<std::string(T)> fmt;

  bool summarized(std::size_t axis) const { return summarize && 2 * kEdgeItems < shape.dims()[axis]; }

  // The elements NumPy shows, which alone set the common width.
  void collect(std::size_t axis, int64_t offset, std::vector<T>& out) const {
    const int64_t n = shape.dims()[axis];
    for (int64_t i = 0; i < n; ++i) {
      if (summarized(axis) && i == kEdgeItems) i = n - kEdgeItems;
      if (axis + 1 == shape.size()) out.push_back(p[offset + i * strides[axis]]);
      else collect(axis + 1, offset + i * strides[axis], out);
    }
  }

  // numpy.core.arrayprint._formatArray's recurser.
  std::string rows(std::size_t axis, int64_t offset, const std::string& indent, std::size_t width) const {
    const int64_t n = shape.dims()[axis];
    const std::string next_indent = indent + " ";
    const bool summary = summarized(axis);
    std::string s;
    if (axis + 1 == shape.size()) {
      const std::size_t elem_width = width - 1;
      std::string line = indent;
      auto extend = [&](const std::string& word) {
        if (line.size() + word.size() > elem_width && line.size() > indent.size()) {
          s += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
          line = indent;
        }
        line += word;
      };
      for (int64_t i = 0; i < n; ++i) {
        if (summary && i == kEdgeItems) {
          extend("...");
          line += " ";
          i = n - kEdgeItems;
        }
        extend(fmt(p[offset + i * strides[axis]]));
        if (i + 1 < n) line += " ";
      }
      s += line;
    } else {
      const std::string sep = std::string(shape.size() - axis - 1, '\n');
      for (int64_t i = 0; i < n; ++i) {
        if (summary && i == kEdgeItems) {
          s += indent + "..." + sep;
          i = n - kEdgeItems;
        }
        s += indent + rows(axis + 1, offset + i * strides[axis], next_indent, width - 1);
        if (i + 1 < n) s += sep;
      }
    }
    return "[" + s.substr(indent.size()) + "]";
  }
};

template <class T>
std::string array_text(const T* p, const Shape& shape, int64_t size) {
  if (shape.size() == 0) return scalar_text(p[0]);
  if (size == 0) return "[]";
  ArrayText<T> a{p, shape, contiguous_strides(shape), size > kThreshold, nullptr};
  std::vector<T> shown;
  a.collect(0, 0, shown);
  a.fmt = element_format(shown);
  return a.rows(0, 0, " ", kLineWidth);
}
}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "Tensor(undefined)";
  if (t.is_symbolic()) return os << "KerasTensor(shape=" << t.shape().to_string() << ", dtype=" << t.dtype() << ")";
  // While a kiln::function traces, values are those of the first call only;
  // like TensorFlow, print what the graph knows: the function, shape and dtype.
  // (Printing is not a size the graph depends on, so the shape is read without
  // Tensor::shape(), which a shape-polymorphic trace would take for one.)
  if (const std::string* fn = tracing::current_function())
    return os << "Tensor(\"" << *fn << "\", shape=" << t.impl()->shape.to_string() << ", dtype=" << t.dtype()
              << ")";
  Tensor h = t.to(Device::cpu());
  std::string text = h.dtype() == DType::string
      ? array_text(static_cast<const std::string*>(h.raw_data()), h.shape(), h.size())
      : dispatch_any_dtype(h.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return array_text(static_cast<const T*>(h.raw_data()), h.shape(), h.size());
  });
  if (text.find('\n') != std::string::npos) text.insert(0, "\n");
  return os << "tf.Tensor(" << text << ", shape=" << t.shape().to_string() << ", dtype=" << t.dtype() << ")";
}

std::string to_string(const Tensor& t) {
  std::ostringstream s;
  s << t;
  return s.str();
}

}  // namespace kiln
