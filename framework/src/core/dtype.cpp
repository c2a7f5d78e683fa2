#include "kiln/core/dtype.h"

#include <ostream>

#include "kiln/core/error.h"

namespace kiln {

std::string dtype_name(DType d) {
  switch (d) {
    case DType::float32: return "float32";
    case DType::float64: return "float64";
    case DType::int32: return "int32";
    case DType::int64: return "int64";
    case DType::uint8: return "uint8";
    case DType::int8: return "int8";
    case DType::bool_: return "bool";
    case DType::float16: return "float16";
    case DType::bfloat16: return "bfloat16";
    case DType::string: return "string";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, DType d) { return os << dtype_name(d); }

DType dtype_from_name(const std::string& n) {
  if (n == "float32") return DType::float32;
  if (n == "float64") return DType::float64;
  if (n == "int32") return DType::int32;
  if (n == "int64") return DType::int64;
  if (n == "uint8") return DType::uint8;
  if (n == "int8") return DType::int8;
  if (n == "bool") return DType::bool_;
  if (n == "float16") return DType::float16;
  if (n == "bfloat16") return DType::bfloat16;
  if (n == "string") return DType::string;
  throw ValueError("Unknown dtype '" + n +
                   "'; expected one of float16, bfloat16, float32, float64, int8, int32, int64, uint8, bool, string");
}

std::size_t dtype_size(DType d) {
  switch (d) {
    case DType::float32: return 4;
    case DType::float64: return 8;
    case DType::int32: return 4;
    case DType::int64: return 8;
    case DType::uint8: return 1;
    case DType::int8: return 1;
    case DType::bool_: return 1;
    case DType::float16: return 2;
    case DType::bfloat16: return 2;
    case DType::string: return sizeof(std::string);
  }
  return 0;
}

}  // namespace kiln
