#pragma once
// Private (framework/src/io): HDF5 keeps no checksum on raw data, so a
// corrupt or tampered weights file reads back without any error from the
// library. The one check its format allows is that every float value read is
// finite; a trained model's weights always are.
#include <string>

#include "kiln/core/tensor.h"

namespace kiln::io {

/// Throws IOError if the float tensor `t` holds a NaN or an infinity. `who`
/// names the file, layer and weight; the message adds the first bad index and
/// ends with `why` (by default: that HDF5 keeps no checksum).
void require_finite_values(const Tensor& t, const std::string& who, const std::string& why = "");

}  // namespace kiln::io
