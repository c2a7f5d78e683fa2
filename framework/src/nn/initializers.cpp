// Keras 3 initializers (keras/src/initializers/*.py): same class names,
// defaults, formulas and get_config keys.
//
// One deliberate difference: an unseeded random initializer draws a fresh
// seed from kiln's global generator on every call (so kiln::random::set_seed
// makes a whole model reproducible), whereas Keras 3 fixes a default seed when
// the initializer is constructed. A seeded initializer gives the same values
// on every call, as in Keras.
#include "kiln/nn/initializers.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/number_text.h"
#include "kiln/core/error.h"
#include "kiln/ops/math_ops.h"
#include "kiln/ops/random.h"

namespace kiln::initializers {
namespace {

Config seed_config(const std::optional<uint64_t>& seed) { return seed ? Config(*seed) : Config(nullptr); }

// ---- constant initializers ----

class ZerosInit : public Initializer {
 public:
  Tensor operator()(const Shape& shape, DType dtype) const override { return zeros(shape, dtype); }
  std::string class_name() const override { return "Zeros"; }
};

class OnesInit : public Initializer {
 public:
  Tensor operator()(const Shape& shape, DType dtype) const override { return ones(shape, dtype); }
  std::string class_name() const override { return "Ones"; }
};

class ConstantInit : public Initializer {
 public:
  explicit ConstantInit(double value) : value_(value) {}
  Tensor operator()(const Shape& shape, DType dtype) const override { return fill(shape, value_, dtype); }
  std::string class_name() const override { return "Constant"; }
  Config get_config() const override { return {{"value", value_}}; }

 private:
  double value_;
};

class IdentityInit : public Initializer {
 public:
  explicit IdentityInit(double gain) : gain_(gain) {}
  Tensor operator()(const Shape& shape, DType dtype) const override {
    if (shape.rank() != 2)
      throw ValueError("Identity initializer can only be used for 2D matrices. Received: shape=" + shape.to_string() +
                       " of rank " + std::to_string(shape.rank()) + ".");
    Tensor t = eye(shape[0], shape[1], dtype);
    return gain_ == 1.0 ? t : t * gain_;
  }
  std::string class_name() const override { return "Identity"; }
  Config get_config() const override { return {{"gain", gain_}}; }

 private:
  double gain_;
};

// ---- random initializers ----

class RandomNormalInit : public Initializer {
 public:
  RandomNormalInit(double mean, double stddev, std::optional<uint64_t> seed)
      : mean_(mean), stddev_(stddev), seed_(seed) {}
  Tensor operator()(const Shape& shape, DType dtype) const override {
    return random::normal(shape, mean_, stddev_, dtype, seed_);
  }
  std::string class_name() const override { return "RandomNormal"; }
  Config get_config() const override { return {{"mean", mean_}, {"stddev", stddev_}, {"seed", seed_config(seed_)}}; }

 private:
  double mean_, stddev_;
  std::optional<uint64_t> seed_;
};

class TruncatedNormalInit : public Initializer {
 public:
  TruncatedNormalInit(double mean, double stddev, std::optional<uint64_t> seed)
      : mean_(mean), stddev_(stddev), seed_(seed) {}
  Tensor operator()(const Shape& shape, DType dtype) const override {
    return random::truncated_normal(shape, mean_, stddev_, dtype, seed_);
  }
  std::string class_name() const override { return "TruncatedNormal"; }
  Config get_config() const override { return {{"mean", mean_}, {"stddev", stddev_}, {"seed", seed_config(seed_)}}; }

 private:
  double mean_, stddev_;
  std::optional<uint64_t> seed_;
};

class RandomUniformInit : public Initializer {
 public:
  RandomUniformInit(double minval, double maxval, std::optional<uint64_t> seed)
      : minval_(minval), maxval_(maxval), seed_(seed) {}
  Tensor operator()(const Shape& shape, DType dtype) const override {
    return random::uniform(shape, minval_, maxval_, dtype, seed_);
  }
  std::string class_name() const override { return "RandomUniform"; }
  Config get_config() const override {
    return {{"minval", minval_}, {"maxval", maxval_}, {"seed", seed_config(seed_)}};
  }

 private:
  double minval_, maxval_;
  std::optional<uint64_t> seed_;
};

class VarianceScalingInit : public Initializer {
 public:
  VarianceScalingInit(double scale, std::string mode, std::string distribution, std::optional<uint64_t> seed,
                      FanAxes axes, std::string name = "VarianceScaling")
      : scale_(scale), mode_(std::move(mode)), distribution_(std::move(distribution)), seed_(seed),
        axes_(std::move(axes)), name_(std::move(name)) {
    if (!(scale_ > 0.0))
      throw ValueError("VarianceScaling: argument `scale` must be a positive float. Received: scale=" +
                       kiln::detail::number_text(scale_));
    if (mode_ != "fan_in" && mode_ != "fan_out" && mode_ != "fan_avg")
      throw ValueError("VarianceScaling: invalid `mode` argument: '" + mode_ +
                       "'. Expected one of 'fan_in', 'fan_out', 'fan_avg'.");
    std::transform(distribution_.begin(), distribution_.end(), distribution_.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (distribution_ == "normal") distribution_ = "truncated_normal";  // legacy spelling, as Keras
    if (distribution_ != "truncated_normal" && distribution_ != "untruncated_normal" && distribution_ != "uniform")
      throw ValueError("VarianceScaling: invalid `distribution` argument: '" + distribution_ +
                       "'. Expected one of 'truncated_normal', 'untruncated_normal', 'uniform'.");
  }

  Tensor operator()(const Shape& shape, DType dtype) const override {
    auto [fan_in, fan_out] = compute_fans(shape, axes_);
    double n = mode_ == "fan_in" ? fan_in : mode_ == "fan_out" ? fan_out : (fan_in + fan_out) / 2.0;
    double scale = scale_ / std::max(1.0, n);
    if (distribution_ == "truncated_normal") {
      // Std of a unit normal truncated to [-2, 2]; dividing by it makes the
      // *truncated* distribution have variance `scale`.
      double stddev = std::sqrt(scale) / 0.87962566103423978;
      return random::truncated_normal(shape, 0.0, stddev, dtype, seed_);
    }
    if (distribution_ == "untruncated_normal") return random::normal(shape, 0.0, std::sqrt(scale), dtype, seed_);
    double limit = std::sqrt(3.0 * scale);
    return random::uniform(shape, -limit, limit, dtype, seed_);
  }
  std::string class_name() const override { return name_; }
  Config get_config() const override {
    // The named presets (GlorotUniform, HeNormal...) only store their seed. The
    // fan axes are written only when set: Keras before 3.15 rejects the keys.
    Config c = name_ != "VarianceScaling" ? Config{{"seed", seed_config(seed_)}}
                                          : Config{{"scale", scale_}, {"mode", mode_}, {"distribution", distribution_},
                                                   {"seed", seed_config(seed_)}};
    if (axes_.input_axes) c["input_axes"] = *axes_.input_axes;
    if (axes_.output_axes) c["output_axes"] = *axes_.output_axes;
    return c;
  }

 private:
  double scale_;
  std::string mode_, distribution_;
  std::optional<uint64_t> seed_;
  FanAxes axes_;
  std::string name_;
};

// Householder QR of a row-major m x n matrix (m >= n) in float64. Returns the
// reduced Q (m x n) with its columns signed so that diag(R) > 0, which makes
// Q unique: the same as numpy's `q * sign(diag(r))` in Keras.
std::vector<double> orthonormal_columns(std::vector<double> a, int64_t m, int64_t n) {
  std::vector<std::vector<double>> vs;  // Householder vectors, v_k has length m - k
  std::vector<double> rdiag(static_cast<std::size_t>(n));
  auto A = [&](int64_t i, int64_t j) -> double& { return a[static_cast<std::size_t>(i * n + j)]; };
  for (int64_t k = 0; k < n; ++k) {
    std::vector<double> v(static_cast<std::size_t>(m - k));
    double norm2 = 0;
    for (int64_t i = k; i < m; ++i) {
      v[i - k] = A(i, k);
      norm2 += v[i - k] * v[i - k];
    }
    double norm = std::sqrt(norm2);
    // alpha has the opposite sign of x0 to avoid cancellation in v = x - alpha e1.
    double alpha = v[0] > 0 ? -norm : norm;
    rdiag[k] = alpha;
    v[0] -= alpha;
    double vnorm = 0;
    for (double x : v) vnorm += x * x;
    vnorm = std::sqrt(vnorm);
    if (vnorm > 0)
      for (double& x : v) x /= vnorm;
    // A[k:, k:] -= 2 v (v^T A[k:, k:])
    for (int64_t j = k; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[i - k] * A(i, j);
      for (int64_t i = k; i < m; ++i) A(i, j) -= 2 * v[i - k] * dot;
    }
    vs.push_back(std::move(v));
  }
  // Q = H_0 H_1 ... H_{n-1} applied to the first n columns of the identity.
  std::vector<double> q(static_cast<std::size_t>(m * n), 0.0);
  auto Q = [&](int64_t i, int64_t j) -> double& { return q[static_cast<std::size_t>(i * n + j)]; };
  for (int64_t j = 0; j < n; ++j) Q(j, j) = 1.0;
  for (int64_t k = n - 1; k >= 0; --k) {
    const auto& v = vs[static_cast<std::size_t>(k)];
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[i - k] * Q(i, j);
      for (int64_t i = k; i < m; ++i) Q(i, j) -= 2 * v[i - k] * dot;
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    double s = rdiag[j] > 0 ? 1.0 : rdiag[j] < 0 ? -1.0 : 0.0;
    for (int64_t i = 0; i < m; ++i) Q(i, j) *= s;
  }
  return q;
}

class OrthogonalInit : public Initializer {
 public:
  OrthogonalInit(double gain, std::optional<uint64_t> seed) : gain_(gain), seed_(seed) {}
  Tensor operator()(const Shape& shape, DType dtype) const override {
    if (shape.rank() < 2)
      throw ValueError("Orthogonal initializer: the tensor to initialize must be at least two-dimensional. Received: shape=" +
                       shape.to_string() + " of rank " + std::to_string(shape.rank()) + ".");
    if (!is_floating(dtype)) throw TypeError("Orthogonal initializer: dtype must be float32 or float64, got " + dtype_name(dtype));
    // Flatten all but the last axis, so conv kernels work too.
    int64_t rows = 1;
    for (int64_t i = 0; i + 1 < shape.rank(); ++i) rows *= shape[i];
    int64_t cols = shape[-1];
    int64_t m = std::max(rows, cols), n = std::min(rows, cols);
    auto a = random::normal({m, n}, 0.0, 1.0, DType::float64, seed_).to_vector<double>();
    auto q = orthonormal_columns(std::move(a), m, n);  // (m, n), orthonormal columns
    std::vector<double> out(q.size());
    if (rows < cols) {
      // Fewer rows than columns: return Q^T, whose rows are orthonormal.
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) out[static_cast<std::size_t>(j * m + i)] = q[static_cast<std::size_t>(i * n + j)];
    } else {
      out = std::move(q);
    }
    for (double& x : out) x *= gain_;
    return Tensor(out, shape).cast(dtype);
  }
  std::string class_name() const override { return "Orthogonal"; }
  Config get_config() const override { return {{"gain", gain_}, {"seed", seed_config(seed_)}}; }

 private:
  double gain_;
  std::optional<uint64_t> seed_;
};

}  // namespace

Config Initializer::get_config() const { return Config::object(); }

InitializerPtr Zeros() { return std::make_shared<ZerosInit>(); }
InitializerPtr Ones() { return std::make_shared<OnesInit>(); }
InitializerPtr Constant(double value) { return std::make_shared<ConstantInit>(value); }
InitializerPtr RandomNormal(double mean, double stddev, std::optional<uint64_t> seed) {
  return std::make_shared<RandomNormalInit>(mean, stddev, seed);
}
InitializerPtr RandomUniform(double minval, double maxval, std::optional<uint64_t> seed) {
  return std::make_shared<RandomUniformInit>(minval, maxval, seed);
}
InitializerPtr TruncatedNormal(double mean, double stddev, std::optional<uint64_t> seed) {
  return std::make_shared<TruncatedNormalInit>(mean, stddev, seed);
}
InitializerPtr VarianceScaling(double scale, std::string mode, std::string distribution, std::optional<uint64_t> seed,
                               FanAxes axes) {
  return std::make_shared<VarianceScalingInit>(scale, std::move(mode), std::move(distribution), seed, std::move(axes));
}
InitializerPtr GlorotUniform(std::optional<uint64_t> seed, FanAxes axes) {
  return std::make_shared<VarianceScalingInit>(1.0, "fan_avg", "uniform", seed, std::move(axes), "GlorotUniform");
}
InitializerPtr GlorotNormal(std::optional<uint64_t> seed, FanAxes axes) {
  return std::make_shared<VarianceScalingInit>(1.0, "fan_avg", "truncated_normal", seed, std::move(axes), "GlorotNormal");
}
InitializerPtr HeUniform(std::optional<uint64_t> seed, FanAxes axes) {
  return std::make_shared<VarianceScalingInit>(2.0, "fan_in", "uniform", seed, std::move(axes), "HeUniform");
}
InitializerPtr HeNormal(std::optional<uint64_t> seed, FanAxes axes) {
  return std::make_shared<VarianceScalingInit>(2.0, "fan_in", "truncated_normal", seed, std::move(axes), "HeNormal");
}
InitializerPtr LecunUniform(std::optional<uint64_t> seed, FanAxes axes) {
  return std::make_shared<VarianceScalingInit>(1.0, "fan_in", "uniform", seed, std::move(axes), "LecunUniform");
}
InitializerPtr LecunNormal(std::optional<uint64_t> seed, FanAxes axes) {
  return std::make_shared<VarianceScalingInit>(1.0, "fan_in", "truncated_normal", seed, std::move(axes), "LecunNormal");
}
InitializerPtr Orthogonal(double gain, std::optional<uint64_t> seed) { return std::make_shared<OrthogonalInit>(gain, seed); }
InitializerPtr Identity(double gain) { return std::make_shared<IdentityInit>(gain); }

std::pair<double, double> compute_fans(const Shape& shape) {
  const int64_t r = shape.rank();
  if (r < 1) return {1.0, 1.0};
  if (r == 1) return {static_cast<double>(shape[0]), static_cast<double>(shape[0])};
  if (r == 2) return {static_cast<double>(shape[0]), static_cast<double>(shape[1])};
  // Convolution kernel (..., in, out): the receptive field multiplies both fans.
  double receptive = 1.0;
  for (int64_t i = 0; i + 2 < r; ++i) receptive *= static_cast<double>(shape[i]);
  return {static_cast<double>(shape[-2]) * receptive, static_cast<double>(shape[-1]) * receptive};
}

std::pair<double, double> compute_fans(const Shape& shape, const FanAxes& axes) {
  if (!axes.input_axes || !axes.output_axes) return compute_fans(shape);
  auto product = [&](const std::vector<int>& list, const char* key) {
    double n = 1.0;
    for (int a : list) {
      const int64_t k = a < 0 ? a + shape.rank() : a;
      if (k < 0 || k >= shape.rank())
        throw IndexError(std::string("VarianceScaling: ") + key + " entry " + std::to_string(a) +
                         " is out of range for the weight shape " + shape.to_string());
      n *= static_cast<double>(shape[k]);
    }
    return n;
  };
  return {product(*axes.input_axes, "input_axes"), product(*axes.output_axes, "output_axes")};
}

}  // namespace kiln::initializers
