// Strings and numbers: to_number, as_string, decode_raw and to_hash_bucket_fast.
#include <charconv>
#include <cstdio>
#include <cstring>

#include "core/dispatch.h"
#include "kiln/ops/string_hash.h"
#include "kiln/ops/strings.h"
#include "ops/op_util.h"
#include "ops/string_util.h"

namespace kiln::strings {

using detail::string_elements;

namespace {

std::string_view trimmed(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string_view(s).substr(b, e - b);
}

// TF's safe_strto* rules: surrounding whitespace allowed, a leading '+' allowed,
// the whole rest must be the number, and integers must fit.
template <class T>
bool parse_number(const std::string& s, T& out) {
  std::string_view v = trimmed(s);
  if (!v.empty() && v[0] == '+') v.remove_prefix(1);
  if (v.empty() || v[0] == '+') return false;
  const auto r = std::from_chars(v.data(), v.data() + v.size(), out);
  return r.ec == std::errc() && r.ptr == v.data() + v.size();
}

std::string printf_format(const AsStringOptions& o, DType d) {
  std::string f = "%";
  if (!o.fill.empty()) {
    if (o.fill.size() > 1 || std::string(" +-0#").find(o.fill[0]) == std::string::npos)
      throw ValueError("strings.as_string: fill must be one of ' ', '+', '-', '0', '#' (or empty), but received \"" +
                       o.fill + "\"");
    f += o.fill;
  }
  if (o.width > -1) f += std::to_string(o.width);
  if (!is_floating(d)) {
    if (o.precision > -1 || o.scientific || o.shortest)
      throw ValueError("strings.as_string: precision, scientific and shortest apply to floats, but the input is " +
                       dtype_name(d));
    return f + "lld";
  }
  if (o.scientific && o.shortest)
    throw ValueError("strings.as_string: scientific and shortest cannot both be set");
  if (o.precision > -1) f += "." + std::to_string(o.precision);
  return f + (o.scientific ? "e" : o.shortest ? "g" : "f");
}

}  // namespace

Tensor to_number(const Tensor& input, DType out_type) {
  const std::string* in = string_elements(input, "strings.to_number");
  if (out_type != DType::float32 && out_type != DType::float64 && out_type != DType::int32 && out_type != DType::int64)
    throw TypeError("strings.to_number: out_type must be float32, float64, int32 or int64, but received " +
                    dtype_name(out_type));
  Tensor out = Tensor::empty(input.shape(), out_type);
  dispatch_dtype(out_type, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> ||
                  std::is_same_v<T, int64_t>) {
      T* o = out.data<T>();
      for (int64_t i = 0; i < input.size(); ++i)
        if (!parse_number(in[i], o[i]))
          throw ValueError("strings.to_number: StringToNumberOp could not correctly convert string: " + in[i] +
                           " (element " + std::to_string(i) + ", to " + dtype_name(out_type) + ")");
    }
  });
  return out;
}

RaggedTensor to_number(const RaggedTensor& input, DType out_type) {
  return input.with_values(to_number(input.values(), out_type));
}

Tensor as_string(const Tensor& input, const AsStringOptions& options) {
  ops::check_concrete("strings.as_string", input);
  if (input.dtype() == DType::string) return input;
  Tensor x = is_half_float(input.dtype()) ? input.cast(DType::float32) : input;
  x = x.to(Device::cpu());
  Tensor out = Tensor::empty(input.shape(), DType::string);
  std::string* o = out.data<std::string>();
  const std::string fmt = x.dtype() == DType::bool_ ? "" : printf_format(options, x.dtype());
  char buf[512];
  dispatch_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = x.data<T>();
    for (int64_t i = 0; i < x.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        o[i] = p[i] ? "true" : "false";
      } else if constexpr (std::is_floating_point_v<T>) {
        std::snprintf(buf, sizeof buf, fmt.c_str(), static_cast<double>(p[i]));
        o[i] = buf;
      } else {
        std::snprintf(buf, sizeof buf, fmt.c_str(), static_cast<long long>(p[i]));
        o[i] = buf;
      }
    }
  });
  return out;
}

Tensor to_hash_bucket_fast(const Tensor& input, int64_t num_buckets) {
  const std::string* in = string_elements(input, "strings.to_hash_bucket_fast");
  if (num_buckets < 1)
    throw ValueError("strings.to_hash_bucket_fast: num_buckets must be >= 1, but received " + std::to_string(num_buckets));
  Tensor out = Tensor::empty(input.shape(), DType::int64);
  int64_t* o = out.data<int64_t>();
  for (int64_t i = 0; i < input.size(); ++i)
    o[i] = static_cast<int64_t>(utils::fingerprint64(in[i]) % static_cast<uint64_t>(num_buckets));
  return out;
}

}  // namespace kiln::strings

namespace kiln::io {

Tensor decode_raw(const Tensor& input, DType out_type) {
  const std::string* in = strings::detail::string_elements(input, "io.decode_raw");
  if (out_type == DType::string) throw TypeError("io.decode_raw: out_type must be a numeric dtype, not string");
  const std::size_t es = dtype_size(out_type);
  const std::size_t bytes = input.size() == 0 ? 0 : in[0].size();
  for (int64_t i = 0; i < input.size(); ++i) {
    if (in[i].size() != bytes)
      throw ValueError("io.decode_raw: DecodeRaw requires input strings to all be the same size, but element " +
                       std::to_string(i) + " has size " + std::to_string(in[i].size()) + " != " + std::to_string(bytes));
  }
  if (bytes % es != 0)
    throw ValueError("io.decode_raw: Input to DecodeRaw has length " + std::to_string(bytes) +
                     " that is not a multiple of " + std::to_string(es) + ", the size of " + dtype_name(out_type));
  std::vector<int64_t> d = input.shape().dims();
  d.push_back(static_cast<int64_t>(bytes / es));
  Tensor out = Tensor::empty(Shape(d), out_type);
  char* o = static_cast<char*>(out.raw_data());
  for (int64_t i = 0; i < input.size(); ++i) {
    char* row = o + static_cast<std::size_t>(i) * bytes;
    if (out_type != DType::bool_) std::memcpy(row, in[i].data(), bytes);
    else
      for (std::size_t k = 0; k < bytes; ++k) row[k] = in[i][k] != 0;  // any nonzero byte is true, as a C++ bool must be 0 or 1
  }
  return out;
}

}  // namespace kiln::io
