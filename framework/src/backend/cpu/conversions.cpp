// CPU kernels that set or convert values: fill, copy and cast, the 16-bit
// float types included.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/denormals.h"
#include "backend/cpu/half_convert.h"
#include "backend/cpu/parallel.h"
#include "core/dispatch.h"

namespace kiln::cpu {

void CpuBackend::fill(Tensor& out, double value) {
  FlushDenormals flush;
  if (out.dtype() == DType::string) {
    // tf.zeros(dtype=tf.string) is empty strings; no number has a string value.
    if (value != 0.0)
      throw TypeError("fill: a string tensor can only be filled with empty strings (zeros), not " + std::to_string(value));
    std::fill_n(static_cast<std::string*>(out.raw_data()), out.size(), std::string());
    return;
  }
  dispatch_any_dtype(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.raw_data());
    const T v = static_cast<T>(value);
    std::fill(p, p + out.size(), v);
  });
}

void CpuBackend::copy_from(const Tensor& src, Tensor& dst) {
  FlushDenormals flush;
  copy_elements(dst.raw_data(), src.raw_data(), static_cast<std::size_t>(src.size()), src.dtype());
}

// Below this many elements a second thread costs more than a conversion saves.
constexpr int64_t kCastGrain = 1 << 15;

void CpuBackend::cast(const Tensor& x, Tensor& out) {
  FlushDenormals flush;
  dispatch_any_dtype(x.dtype(), [&](auto ti) {
    using S = decltype(ti);
    dispatch_any_dtype(out.dtype(), [&](auto to) {
      using D = decltype(to);
      const S* s = static_cast<const S*>(x.raw_data());
      D* d = static_cast<D*>(out.raw_data());
      const int64_t n = x.size();
      if constexpr ((std::is_same_v<S, float> && is_half_type_v<D>) || (is_half_type_v<S> && std::is_same_v<D, float>)) {
        parallel_for(
            n, [&](int64_t b, int64_t e) { convert_floats(s + b, d + b, e - b); }, kCastGrain);
      } else if constexpr (is_half_type_v<S> && is_half_type_v<D>) {
        for (int64_t i = 0; i < n; ++i) d[i] = D(static_cast<float>(s[i]));
      } else {
        for (int64_t i = 0; i < n; ++i) {
          if constexpr (std::is_same_v<D, bool>) d[i] = s[i] != S(0);
          else d[i] = static_cast<D>(s[i]);
        }
      }
    });
  });
}

}  // namespace kiln::cpu
