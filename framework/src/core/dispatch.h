#pragma once
// Private: calls f(T{}) with the C++ type of a DType.
#include <cstdint>

#include "kiln/core/dtype.h"
#include "kiln/core/error.h"

namespace kiln {

template <class F>
decltype(auto) dispatch_dtype(DType d, F&& f) {
  switch (d) {
    case DType::float32: return f(float{});
    case DType::float64: return f(double{});
    case DType::int32: return f(int32_t{});
    case DType::int64: return f(int64_t{});
    case DType::uint8: return f(uint8_t{});
    case DType::bool_: return f(bool{});
  }
  throw TypeError("unknown dtype");
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
