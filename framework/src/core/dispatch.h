#pragma once
// Private: calls f(T{}) with the C++ type of a DType.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "kiln/core/dtype.h"
#include "kiln/core/error.h"
#include "kiln/core/half.h"

namespace kiln {

/// Kernels that compute: float16 and bfloat16 never reach them, since ops
/// compute those in float32 (ops/half_compute.h).
template <class F>
decltype(auto) dispatch_dtype(DType d, F&& f) {
  switch (d) {
    case DType::float32: return f(float{});
    case DType::float64: return f(double{});
    case DType::int32: return f(int32_t{});
    case DType::int64: return f(int64_t{});
    case DType::uint8: return f(uint8_t{});
    case DType::int8: return f(int8_t{});
    case DType::bool_: return f(bool{});
    case DType::float16:
    case DType::bfloat16: break;
    case DType::string:
      throw TypeError("a string tensor reached an op that computes on numbers; string tensors are text: use "
                      "the kiln::strings ops on them (strings::to_number parses numbers)");
  }
  throw TypeError("internal: a kernel received a " + dtype_name(d) + " tensor; " + dtype_name(d) +
                  " is computed in float32 by the op that calls it");
}

/// Conversions and copies, which also handle the 16-bit float storage types.
template <class F>
decltype(auto) dispatch_any_dtype(DType d, F&& f) {
  switch (d) {
    case DType::float16: return f(float16_t{});
    case DType::bfloat16: return f(bfloat16_t{});
    default: return dispatch_dtype(d, std::forward<F>(f));
  }
}

/// Copies, which move elements: the 16-bit float types as uint16_t, strings as
/// std::string (so a copy must assign, never memcpy: see copy_elements).
template <class F>
decltype(auto) dispatch_storage_dtype(DType d, F&& f) {
  if (is_half_float(d)) return f(uint16_t{});
  if (d == DType::string) return f(std::string{});
  return dispatch_dtype(d, std::forward<F>(f));
}

/// Copies n elements of dtype d: bytes for numbers, assignments for strings.
inline void copy_elements(void* dst, const void* src, std::size_t n, DType d) {
  if (d == DType::string) {
    std::copy_n(static_cast<const std::string*>(src), n, static_cast<std::string*>(dst));
    return;
  }
  if (n > 0) std::memcpy(dst, src, n * dtype_size(d));
}

template <class F>
decltype(auto) dispatch_float(DType d, const char* op, F&& f) {
  switch (d) {
    case DType::float32: return f(float{});
    case DType::float64: return f(double{});
    default: throw TypeError(std::string(op) + ": expected a float32 or float64 tensor, but received " + dtype_name(d));
  }
}

}  // namespace kiln
