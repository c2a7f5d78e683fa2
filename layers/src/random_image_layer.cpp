// The shared parts of the image augmentation layers: layouts, seeds, factor checks
// and the Factor config codec.
#include "kiln/layers/random_image_layer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kiln/ops/array_ops.h"
#include "kiln/ops/random.h"
#include "random_image_utils.h"
#include "spatial_sizes.h"

namespace kiln::layers {

using namespace detail;

std::optional<uint64_t> RandomImageLayer::next_seed(const std::optional<uint64_t>& seed) {
  if (!seed) return std::nullopt;
  return *seed + 0x9E3779B97F4A7C15ull * (calls_++);
}

Tensor RandomImageLayer::to_batch(const Tensor& input, const std::string& data_format) const {
  if (input.rank() != 3 && input.rank() != 4)
    throw ValueError("Layer '" + name() + "' (" + class_name() +
                     "): expected image tensor to have rank 3 (single image) or 4 (batch of images). Received: data.shape=" +
                     input.shape().to_string());
  Tensor x = cast_to_compute(input, compute_dtype());
  if (x.rank() == 3) x = expand_dims(x, 0);
  return data_format == "channels_first" ? transpose(x, to_channels_last(4)) : x;
}

Tensor RandomImageLayer::from_batch(const Tensor& y, int64_t rank, const std::string& data_format) {
  Tensor out = data_format == "channels_first" ? transpose(y, to_channels_first(4)) : y;
  return rank == 3 ? squeeze(out, {0}) : out;
}

Config config_value(const Factor& f) {
  if (f.values.size() == 1) return f.values[0];
  return Config(f.values);
}

void read_value(const config_io::ConfigReader& r, const char* key, Factor& f) {
  if (!r.has(key)) return;
  const auto& j = r.raw()[key];
  if (j.is_number()) f = Factor(j.get<double>());
  else if (j.is_array() && j.size() == 2 && j[0].is_number() && j[1].is_number()) f = Factor(j[0].get<double>(), j[1].get<double>());
  else r.fail(key, "a number or a list of two numbers");
}

}  // namespace kiln::layers

namespace kiln::layers::detail {

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
std::string factor_text(const Factor& f) {
  if (f.values.size() == 1) return number_text(f.values[0]);
  std::string s = "[";
  for (std::size_t i = 0; i < f.values.size(); ++i) s += (i ? ", " : "") + number_text(f.values[i]);
  return s + "]";
}

std::pair<double, double> base_factor_range(const std::string& cls, const Factor& f, double lo, double hi,
                                            const std::string& arg) {
  // Keras's text names the argument but reports it as `factor=` (its _set_factor_by_name).
  const std::string msg = cls + ": the `" + arg + "` argument should be a number (or a list of two numbers) in the range [" +
                          number_text(lo) + ", " + number_text(hi) + "]. Received: factor=" + factor_text(f);
  if (f.values.size() == 2) {
    if (f.values[0] > hi || f.values[1] < lo) throw ValueError(msg);
    return {std::min(f.values[0], f.values[1]), std::max(f.values[0], f.values[1])};
  }
  if (f.values.size() != 1 || f.values[0] < lo || f.values[0] > hi) throw ValueError(msg);
  const double a = std::abs(f.values[0]);
  return {std::max(-a, lo), a};
}

std::pair<double, double> axis_factor_range(const std::string& cls, const std::string& arg, const Factor& f, bool zoom) {
  const std::string head = zoom ? cls + ": the `height_factor` and `width_factor` arguments should be a number (or a list "
                                        "of two numbers) in the range (-1.0, 1.0]. "
                                : cls + ": the `factor` argument should be a number (or a list of two numbers) in the "
                                        "range [-1.0, 1.0]. ";
  auto check = [&](double v) {
    if (v > 1.0 || (zoom ? v <= -1.0 : v < -1.0)) throw ValueError(head + "Received: input_number=" + number_text(v));
  };
  if (f.values.size() == 2) {
    check(f.values[0]);
    check(f.values[1]);
    return {std::min(f.values[0], f.values[1]), std::max(f.values[0], f.values[1])};
  }
  if (f.values.size() != 1) throw ValueError(head + "Received: " + arg + "=" + factor_text(f));
  check(f.values[0]);
  return {-std::abs(f.values[0]), std::abs(f.values[0])};
}

void check_fill_and_interpolation(const std::string& fill_mode, const std::string& interpolation) {
  if (fill_mode != "reflect" && fill_mode != "wrap" && fill_mode != "constant" && fill_mode != "nearest")
    throw ValueError("Unknown `fill_mode` " + fill_mode + ". Expected of one ('reflect', 'wrap', 'constant', 'nearest').");
  if (interpolation != "nearest" && interpolation != "bilinear")
    throw ValueError("Unknown `interpolation` " + interpolation + ". Expected of one ('nearest', 'bilinear').");
}

std::vector<double> uniform_draws(int64_t n, double lo, double hi, std::optional<uint64_t> seed) {
  return random::uniform({n}, lo, hi, DType::float64, seed).to_vector<double>();
}

}  // namespace kiln::layers::detail
