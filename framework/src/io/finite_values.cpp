#include "io/finite_values.h"

#include <cmath>
#include <sstream>
#include <type_traits>

#include "core/dispatch.h"
#include "kiln/core/error.h"

namespace kiln::io {

void require_finite_values(const Tensor& t, const std::string& who, const std::string& why) {
  if (t.dtype() != DType::float32 && t.dtype() != DType::float64) return;  // integers are always finite
  const Tensor& c = t;  // tensors read from a file are contiguous and on the CPU
  dispatch_float(c.dtype(), "require_finite_values", [&](auto tag) {
    using T = decltype(tag);
    const T* p = static_cast<const T*>(c.raw_data());
    const int64_t n = c.size();
    for (int64_t i = 0; i < n; ++i) {
      if (std::isfinite(p[i])) continue;
      std::ostringstream msg;
      msg << who << ": the values are not finite (" << p[i] << " at flat index " << i << " of shape "
          << t.shape().to_string() << "): the file is corrupt or was saved from a model whose training diverged. "
          << (why.empty() ? "HDF5 keeps no checksum on weight data, so this is the only damage that can be detected" : why);
      throw IOError(msg.str());
    }
  });
}

}  // namespace kiln::io
