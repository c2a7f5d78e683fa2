#pragma once
// NumPy's .npy format (numpy.org/doc/stable/reference/generated/numpy.lib.format.html):
//
//   "\x93NUMPY" <major> <minor> <header length> "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }" data
//
// Only plain (non-structured) dtypes are read. Each maps to the nearest Kiln
// dtype, widening where Kiln has no exact match:
//   |b1 -> bool;  |u1 -> uint8;  i1, i2, u2, i4 -> int32;  u4, i8, u8 -> int64;
//   f4 -> float32;  f8 -> float64.
// Either byte order is accepted, and fortran_order arrays are reordered to
// row-major, so the Tensor always has the array's logical shape.
//
//   kiln::Tensor y = kiln::datasets::load_npy("y_train.npy");  // '|u1' (60000,) -> uint8 (60000,)
#include <cstdint>
#include <span>
#include <string>

#include "kiln/core/tensor.h"

namespace kiln::datasets {

/// Reads the .npy file at `path`. Throws IOError naming the path for a
/// missing file, a bad magic string, an unparsable header, an unsupported
/// dtype, or a data block whose size disagrees with the header's shape.
Tensor load_npy(const std::string& path);

/// Decodes .npy bytes already in memory. `source` names them in error
/// messages (a path, or "<archive>[member.npy]").
///   Tensor t = parse_npy(bytes, "x.npy");  // descr '<f8', shape (2, 3) -> float64 (2, 3)
Tensor parse_npy(std::span<const uint8_t> bytes, const std::string& source);

}  // namespace kiln::datasets
