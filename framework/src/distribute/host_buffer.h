#pragma once
// Private: a tensor's elements to and from plain host memory, for the
// collectives (which work on host buffers; a device tensor goes through the CPU).
#include <cstddef>

#include "distribute/transport.h"
#include "kiln/core/tensor.h"

namespace kiln::distribute {

/// The transport's element type for `d`; throws TypeError naming `what` for others.
ElemType elem_type(DType d, const char* what);
std::size_t byte_size(const Tensor& t);
/// Copies t's elements into `dst` (byte_size(t) bytes).
void copy_out(const Tensor& t, void* dst);
/// Overwrites `dst`'s elements with byte_size(dst) bytes from `src`, on dst's device.
void copy_in(const void* src, Tensor& dst);

}  // namespace kiln::distribute
