#include "kiln/ops/random.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <random>
#include <sstream>

#include "core/number_text.h"
#include "backend/recording.h"
#include "core/dispatch.h"
#include "core/op_log.h"
#include "kiln/ops/array_ops.h"
#include "kiln/core/error.h"
#include "ops/half_compute.h"

namespace kiln::random {
namespace {
struct Global {
  std::mutex mu;
  std::mt19937_64 gen{0x6b696c6e};  // "kiln": fixed default so runs are reproducible
};
Global& global() {
  static Global g;
  return g;
}
std::mt19937_64 make_gen(std::optional<uint64_t> seed) { return std::mt19937_64(seed ? *seed : next_seed()); }

template <class Draw>
void draw_into(Tensor& t, std::mt19937_64 gen, Draw draw) {
  dispatch_dtype(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(t.raw_data());
    for (int64_t i = 0; i < t.size(); ++i) p[i] = static_cast<T>(draw(gen));
  });
}

/// Values are drawn on the host. Inside a kiln::function trace the draw is
/// recorded too, so each replay draws afresh (from the seed when one is given,
/// as each eager call does).
template <class Draw>
Tensor generate(const Shape& shape, DType dtype, std::optional<uint64_t> seed, Draw draw) {
  Tensor t = Tensor::empty(shape, dtype);
  backend::run_as_host_node([t, seed, draw]() mutable { draw_into(t, make_gen(seed), draw); },
                            {.type = "RandomDraw", .writes = {t}, .opaque = false});
  return t.to(default_device());  // drawn on the host, placed where a DeviceScope asks
}
}  // namespace

void set_seed(uint64_t seed) {
  std::lock_guard<std::mutex> l(global().mu);
  global().gen.seed(seed);
}

uint64_t next_seed() {
  std::lock_guard<std::mutex> l(global().mu);
  return global().gen();
}

std::string get_state() {
  std::ostringstream out;
  std::lock_guard<std::mutex> l(global().mu);
  out << global().gen;  // the standard's text form: 312 words and the position
  return out.str();
}

void set_state(const std::string& state) {
  std::istringstream in(state);
  std::mt19937_64 gen;
  in >> gen;
  if (in.fail() || !(in >> std::ws).eof())
    throw ValueError("random::set_state: not a state from random::get_state (" + std::to_string(state.size()) +
                     " characters)");
  std::lock_guard<std::mutex> l(global().mu);
  global().gen = gen;
}

Tensor normal(const Shape& shape, double mean, double stddev, DType dtype, std::optional<uint64_t> seed) {
  KILN_LOG_OP(random::normal, shape, mean, stddev, dtype, seed);
  KILN_HALF_IN_FLOAT32(random::normal, shape, mean, stddev, dtype, seed);
  if (!is_floating(dtype)) throw TypeError("random::normal: dtype must be float32 or float64, got " + dtype_name(dtype));
  std::normal_distribution<double> d(mean, stddev);
  return generate(shape, dtype, seed, [d](auto& g) mutable { return d(g); });
}

Tensor uniform(const Shape& shape, double minval, double maxval, DType dtype, std::optional<uint64_t> seed) {
  KILN_LOG_OP(random::uniform, shape, minval, maxval, dtype, seed);
  KILN_HALF_IN_FLOAT32(random::uniform, shape, minval, maxval, dtype, seed);
  if (maxval <= minval && !(is_floating(dtype) && maxval == minval))
    throw ValueError("random::uniform: maxval (" + kiln::detail::number_text(maxval) + ") must be greater than minval (" +
                     kiln::detail::number_text(minval) + ")");
  if (is_floating(dtype)) {
    std::uniform_real_distribution<double> d(minval, maxval);
    return generate(shape, dtype, seed, [d](auto& g) mutable { return d(g); });
  }
  if (dtype == DType::bool_) throw TypeError("random::uniform: bool is not supported");
  std::uniform_int_distribution<int64_t> d(static_cast<int64_t>(minval), static_cast<int64_t>(maxval) - 1);
  return generate(shape, dtype, seed, [d](auto& g) mutable { return static_cast<double>(d(g)); });
}

Tensor truncated_normal(const Shape& shape, double mean, double stddev, DType dtype, std::optional<uint64_t> seed) {
  KILN_LOG_OP(random::truncated_normal, shape, mean, stddev, dtype, seed);
  KILN_HALF_IN_FLOAT32(random::truncated_normal, shape, mean, stddev, dtype, seed);
  if (!is_floating(dtype)) throw TypeError("random::truncated_normal: dtype must be float, got " + dtype_name(dtype));
  std::normal_distribution<double> d(0.0, 1.0);
  return generate(shape, dtype, seed, [d, mean, stddev](auto& g) mutable {
    double v;
    do v = d(g);
    while (std::abs(v) > 2.0);
    return mean + stddev * v;
  });
}

Tensor permutation(int64_t n, std::optional<uint64_t> seed) {
  KILN_LOG_OP(random::permutation, n, seed);
  KILN_HALF_IN_FLOAT32(random::permutation, n, seed);
  auto gen = make_gen(seed);
  std::vector<int64_t> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = i;
  std::shuffle(v.begin(), v.end(), gen);
  return Tensor(v, Shape{n});
}

}  // namespace kiln::random
