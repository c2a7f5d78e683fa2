// The quantile summary of Keras's Discretization.adapt, step for step.
#include "quantile_summary.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kiln::layers::detail {

namespace {

// np.interp(x, xp, fp) for increasing xp, in float64 (NumPy's arr_interp).
double interp(double x, const std::vector<double>& xp, const std::vector<double>& fp) {
  const std::size_t n = xp.size();
  if (std::isnan(x)) return x;
  if (x < xp.front()) return fp.front();
  if (x >= xp.back()) return fp.back();
  const std::size_t j = static_cast<std::size_t>(std::upper_bound(xp.begin(), xp.end(), x) - xp.begin()) - 1;
  if (j == n - 1 || xp[j] == x) return fp[j];
  const double slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
  double r = slope * (x - xp[j]) + fp[j];
  if (std::isnan(r)) {
    r = slope * (x - xp[j + 1]) + fp[j + 1];
    if (std::isnan(r) && fp[j] == fp[j + 1]) r = fp[j];
  }
  return r;
}

// epsilon + np.arange(0.0, 1.0, epsilon).
std::vector<double> percents(double epsilon) {
  const auto n = static_cast<std::size_t>(std::ceil(1.0 / epsilon));
  std::vector<double> p(n);
  for (std::size_t i = 0; i < n; ++i) p[i] = epsilon + static_cast<double>(i) * epsilon;
  return p;
}

}  // namespace

QuantileSummary summarize(std::vector<float> values, double epsilon) {
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  const double num_buckets = 1.0 / epsilon;
  const double step = std::max(n / num_buckets, 1.0);
  const auto start = static_cast<std::size_t>(step - 1), stride = static_cast<std::size_t>(step);
  QuantileSummary s;
  for (std::size_t i = start; i < values.size(); i += stride) {
    s.values.push_back(values[i]);
    s.weights.push_back(static_cast<float>(step));
  }
  return s;
}

QuantileSummary compress_summary(const QuantileSummary& s, double epsilon) {
  if (static_cast<double>(s.values.size()) * epsilon < 1) return s;
  std::vector<float> cum(s.weights.size());
  float acc = 0;
  for (std::size_t i = 0; i < cum.size(); ++i) cum[i] = acc += s.weights[i];  // float32 cumsum
  std::vector<double> xp(cum.size()), fv(cum.size()), fw(cum.size());
  for (std::size_t i = 0; i < cum.size(); ++i) {
    xp[i] = static_cast<double>(cum[i] / cum.back());  // a float32 division, as NumPy's
    fv[i] = s.values[i];
    fw[i] = cum[i];
  }
  QuantileSummary out;
  double prev = 0;
  for (double p : percents(epsilon)) {
    const double w = interp(p, xp, fw);
    out.values.push_back(static_cast<float>(interp(p, xp, fv)));
    out.weights.push_back(static_cast<float>(w - prev));
    prev = w;
  }
  return out;
}

std::vector<double> quantile_boundaries(const std::vector<float>& data, double epsilon, int64_t num_bins) {
  QuantileSummary s = compress_summary(summarize(data, epsilon), epsilon);
  s = compress_summary(s, 1.0 / static_cast<double>(num_bins));
  std::vector<double> b;
  for (std::size_t i = 0; i + 1 < s.values.size(); ++i) b.push_back(s.values[i]);
  return b;
}

}  // namespace kiln::layers::detail
