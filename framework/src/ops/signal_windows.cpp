// get_window: scipy.signal.get_window's windows, computed in double on the host. A
// periodic window (fftbins=True, scipy's default) is the symmetric one of length + 1
// without its last sample, as scipy's _extend/_truncate make it.
#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "kiln/core/error.h"
#include "kiln/ops/array_ops.h"
#include "kiln/ops/fft_ops.h"

namespace kiln {

namespace {

using WindowValues = std::vector<double>;

/// scipy.signal.windows.general_cosine: sum_k a[k]·cos(k·x), x evenly over [−π, π].
WindowValues general_cosine(int64_t m, const std::vector<double>& a) {
  WindowValues w(static_cast<std::size_t>(m), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    const double x = -std::numbers::pi + 2 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(m - 1);
    for (std::size_t k = 0; k < a.size(); ++k) w[i] += a[k] * std::cos(static_cast<double>(k) * x);
  }
  return w;
}

WindowValues triang_window(int64_t m) {
  WindowValues w;
  for (int64_t n = 1; n <= (m + 1) / 2; ++n)
    w.push_back(m % 2 == 0 ? (2.0 * n - 1.0) / m : 2.0 * n / (m + 1.0));
  const int64_t half = static_cast<int64_t>(w.size());
  for (int64_t i = (m % 2 == 0 ? half - 1 : half - 2); i >= 0; --i) w.push_back(w[i]);
  return w;
}

WindowValues bartlett_window(int64_t m) {
  WindowValues w(static_cast<std::size_t>(m));
  for (int64_t n = 0; n < m; ++n)
    w[n] = n <= (m - 1) / 2.0 ? 2.0 * n / (m - 1) : 2.0 - 2.0 * n / (m - 1);
  return w;
}

WindowValues cosine_window(int64_t m) {
  WindowValues w(static_cast<std::size_t>(m));
  for (int64_t n = 0; n < m; ++n) w[n] = std::sin(std::numbers::pi / m * (n + 0.5));
  return w;
}

/// The symmetric window `name` of m > 1 samples; empty for an unknown name.
WindowValues symmetric_window(const std::string& name, int64_t m) {
  static const std::map<std::string, std::vector<double>> cosines{
      {"hann", {0.5, 0.5}},
      {"hamming", {0.54, 0.46}},
      {"blackman", {0.42, 0.50, 0.08}},
      {"nuttall", {0.3635819, 0.4891775, 0.1365995, 0.0106411}},
      {"blackmanharris", {0.35875, 0.48829, 0.14128, 0.01168}},
      {"flattop", {0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368}}};
  if (auto it = cosines.find(name); it != cosines.end()) return general_cosine(m, it->second);
  if (name == "boxcar") return WindowValues(static_cast<std::size_t>(m), 1.0);
  if (name == "triang") return triang_window(m);
  if (name == "bartlett") return bartlett_window(m);
  if (name == "cosine") return cosine_window(m);
  return {};
}

/// scipy's aliases of the names above.
std::string canonical_window(const std::string& name) {
  static const std::map<std::string, std::string> aliases{
      {"hanning", "hann"}, {"han", "hann"},       {"hamm", "hamming"},      {"ham", "hamming"},
      {"black", "blackman"}, {"blk", "blackman"}, {"nutl", "nuttall"},      {"nut", "nuttall"},
      {"blackharr", "blackmanharris"}, {"bkh", "blackmanharris"}, {"flat", "flattop"}, {"flt", "flattop"},
      {"box", "boxcar"},   {"ones", "boxcar"},    {"rect", "boxcar"},       {"rectangular", "boxcar"},
      {"tri", "triang"},   {"triangle", "triang"}, {"bart", "bartlett"},   {"brt", "bartlett"},
      {"halfcosine", "cosine"}};
  auto it = aliases.find(name);
  return it == aliases.end() ? name : it->second;
}

}  // namespace

Tensor get_window(const Window& window, int64_t length, bool periodic, DType dtype) {
  if (length < 0) throw ValueError("get_window: the window length must be non-negative, got " + std::to_string(length));
  if (window.none) return ones({length}, dtype);
  if (window.name.empty()) {
    if (static_cast<int64_t>(window.values.size()) != length)
      throw ValueError("The shape of `window` must be equal to [" + std::to_string(length) +
                       "]. Received: window shape=(" + std::to_string(window.values.size()) + ",)");
    return cast(Tensor(window.values, Shape{length}), dtype);
  }
  const std::string name = canonical_window(window.name);
  if (symmetric_window(name, 3).empty()) throw ValueError("Unknown window type. Received: window=" + window.name);
  if (length <= 1) return ones({length}, dtype);  // scipy's _len_guards
  WindowValues w = symmetric_window(name, periodic ? length + 1 : length);
  w.resize(static_cast<std::size_t>(length));
  return cast(Tensor(w, Shape{length}), dtype);
}

Tensor kaiser(int64_t x, double beta) {
  if (x < 0) throw ValueError("kaiser: the window length must be non-negative, but received " + std::to_string(x));
  if (x == 1) return ones({1}, DType::float32);
  // numpy.kaiser: I0(beta·sqrt(1 − ((n − α) / α)²)) / I0(beta), α = (x − 1) / 2.
  WindowValues w(static_cast<std::size_t>(x));
  const double alpha = static_cast<double>(x - 1) / 2.0, i0_beta = std::cyl_bessel_i(0.0, beta);
  for (int64_t n = 0; n < x; ++n) {
    const double r = (static_cast<double>(n) - alpha) / alpha;
    w[static_cast<std::size_t>(n)] = std::cyl_bessel_i(0.0, beta * std::sqrt(std::max(0.0, 1.0 - r * r))) / i0_beta;
  }
  return cast(Tensor(w, Shape{x}), DType::float32);
}

}  // namespace kiln
