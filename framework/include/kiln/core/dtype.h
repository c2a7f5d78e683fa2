#pragma once
// Element types. float32 is the default; float64 exists for tight gradient
// checks; float16/bfloat16 store values in half the memory (ops compute them in
// float32 and round once); int32/int64/uint8/bool are for labels, indices and masks;
// int8 holds quantized weights.
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace kiln {

/// Element types (Keras's dtype strings). float32 is the default; float64 exists for
/// tight gradient checks; float16 and bfloat16 are the 16-bit float types of
/// mixed precision; int32/int64/uint8/bool are for labels, indices and masks; int8 holds
/// quantized weights (Keras's `quantize("int8")`); string holds UTF-8 text (tf.string), one
/// byte string per element, on the CPU only.
enum class DType : uint8_t { float32, float64, int32, int64, uint8, bool_, float16, bfloat16, int8, string };

inline constexpr DType float32 = DType::float32;  ///< Shorthand for DType::float32.
inline constexpr DType float64 = DType::float64;  ///< Shorthand for DType::float64.
inline constexpr DType int32 = DType::int32;  ///< Shorthand for DType::int32.
inline constexpr DType int64 = DType::int64;  ///< Shorthand for DType::int64.
inline constexpr DType uint8 = DType::uint8;  ///< Shorthand for DType::uint8.
inline constexpr DType int8 = DType::int8;  ///< Shorthand for DType::int8.
inline constexpr DType bool_ = DType::bool_;  ///< Shorthand for DType::bool_.
inline constexpr DType float16 = DType::float16;  ///< Shorthand for DType::float16.
inline constexpr DType bfloat16 = DType::bfloat16;  ///< Shorthand for DType::bfloat16.
/// Shorthand for DType::string (tf.string). Named like bool_ so that `string` keeps meaning
/// std::string in code that uses both namespaces.
inline constexpr DType string_ = DType::string;

/// "float32", "int64", "bool", ...
std::string dtype_name(DType d);
/// Writes dtype_name(d): std::cout << x.dtype() prints "float32", like print(x.dtype.name).
std::ostream& operator<<(std::ostream& os, DType d);
/// Inverse of dtype_name; throws ValueError for an unknown name.
DType dtype_from_name(const std::string& name);
std::size_t dtype_size(DType d);  ///< Bytes per element.
/// Whether d is a floating-point dtype: float16, bfloat16, float32 or float64.
inline bool is_floating(DType d) {
  return d == DType::float32 || d == DType::float64 || d == DType::float16 || d == DType::bfloat16;
}
/// Whether d is the string dtype, whose elements are std::string objects rather than numbers.
inline bool is_string(DType d) { return d == DType::string; }
/// Whether d is float16 or bfloat16, which ops compute in float32.
inline bool is_half_float(DType d) { return d == DType::float16 || d == DType::bfloat16; }
/// Whether d is int8, int32, int64 or uint8.
inline bool is_integer(DType d) {
  return d == DType::int32 || d == DType::int64 || d == DType::uint8 || d == DType::int8;
}

struct float16_t;   // kiln/core/half.h
struct bfloat16_t;  // kiln/core/half.h

/// Maps a C++ element type to its DType: dtype_of<float>::value is float32; float,
/// double, float16_t, bfloat16_t, int8_t, int32_t, int64_t, uint8_t and bool are mapped.
template <class T> struct dtype_of;
/// @cond
template <> struct dtype_of<float> { static constexpr DType value = DType::float32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::float64; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::int32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::int64; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = DType::uint8; };
template <> struct dtype_of<int8_t> { static constexpr DType value = DType::int8; };
template <> struct dtype_of<bool> { static constexpr DType value = DType::bool_; };
template <> struct dtype_of<float16_t> { static constexpr DType value = DType::float16; };
template <> struct dtype_of<bfloat16_t> { static constexpr DType value = DType::bfloat16; };
template <> struct dtype_of<std::string> { static constexpr DType value = DType::string; };
/// @endcond
/// dtype_of<T>::value.
template <class T> inline constexpr DType dtype_of_v = dtype_of<T>::value;

}  // namespace kiln
