#pragma once
// The 16-bit floating-point element types: IEEE 754 binary16 (float16_t) and
// bfloat16 (bfloat16_t, the top half of a float32). Both are storage types:
// they convert to float exactly, and from float and double with
// round-to-nearest-even, as NumPy and ml_dtypes do. Arithmetic on them goes
// through float (a + b is a float), so results round once, where they are stored.
#include <bit>
#include <cstdint>
#include <type_traits>

namespace kiln {

/// @cond
namespace half_detail {

// float -> binary16, round to nearest even; NaN stays NaN (quiet), overflow gives inf.
constexpr uint16_t float_to_half_bits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to 2^16 or above: inf
  if (a >= 0x38800000u) {                                               // a normal half
    const uint32_t rounded = a + 0xfffu + ((a >> 13) & 1u);
    return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
  }
  if (a < 0x33000001u) return sign;  // at most half the smallest subnormal: rounds to zero
  // A subnormal half: shift the full significand into place and round.
  const uint32_t exp = a >> 23;
  const uint32_t mant = (a & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - exp;  // 14..24
  const uint32_t kept = mant >> shift;
  const uint32_t rest = mant & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1u);
  const uint32_t up = rest > halfway || (rest == halfway && (kept & 1u));
  return static_cast<uint16_t>(sign | (kept + up));
}

constexpr float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  if (exp != 0) return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
  if (mant == 0) return std::bit_cast<float>(sign);
  // A subnormal half is mant * 2^-24, which float holds exactly.
  const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
  return sign ? -v : v;
}

constexpr uint16_t float_to_bfloat16_bits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

constexpr float bfloat16_bits_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

// double -> float rounded to odd: converting that float to a 16-bit type then
// rounds as a direct conversion from the double would (float keeps more than
// two extra bits), where plain float rounding could round twice.
constexpr float round_to_odd(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d || f != f) return f;
  uint32_t bits = std::bit_cast<uint32_t>(f);
  const double af = f < 0 ? -static_cast<double>(f) : static_cast<double>(f);
  const double ad = d < 0 ? -d : d;
  if (af > ad) --bits;  // rounded away from zero: step back towards it (inf steps back to the largest float)
  return std::bit_cast<float>(bits | 1u);
}

}  // namespace half_detail
/// @endcond

/// A 16-bit float stored as its bits; Format converts to and from float.
template <class Derived, class Format>
struct basic_half {
  uint16_t bits = 0;  ///< The value's 16 bits (sign, exponent, fraction).
  constexpr basic_half() = default;  ///< Positive zero.
  /// The value nearest f, ties to even; NaN stays NaN, beyond the range gives infinity.
  constexpr explicit basic_half(float f) : bits(Format::from_float(f)) {}
  /// The value nearest d, in one rounding (as a direct conversion from double rounds).
  constexpr explicit basic_half(double d) : basic_half(half_detail::round_to_odd(d)) {}
  /// The value nearest the integer v.
  template <class T>
    requires std::is_integral_v<T>
  constexpr explicit basic_half(T v) : basic_half(static_cast<double>(v)) {}
  /// The exact float of the value.
  constexpr operator float() const { return Format::to_float(bits); }
  /// The value with the given bits.
  static constexpr Derived from_bits(uint16_t b) {
    Derived h;
    h.bits = b;
    return h;
  }
};

/// @cond
namespace half_detail {
struct binary16_format {
  static constexpr uint16_t from_float(float f) { return float_to_half_bits(f); }
  static constexpr float to_float(uint16_t b) { return half_bits_to_float(b); }
};
struct bfloat16_format {
  static constexpr uint16_t from_float(float f) { return float_to_bfloat16_bits(f); }
  static constexpr float to_float(uint16_t b) { return bfloat16_bits_to_float(b); }
};
}  // namespace half_detail
/// @endcond

/// IEEE 754 binary16 (NumPy's float16): 1 sign, 5 exponent and 10 fraction bits.
struct float16_t : basic_half<float16_t, half_detail::binary16_format> {
  using basic_half::basic_half;
};

/// bfloat16: float32's sign and 8 exponent bits with 7 fraction bits.
struct bfloat16_t : basic_half<bfloat16_t, half_detail::bfloat16_format> {
  using basic_half::basic_half;
};

/// Whether T is one of the 16-bit float storage types.
template <class T>
inline constexpr bool is_half_type_v = std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;

}  // namespace kiln
