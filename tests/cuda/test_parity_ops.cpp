// GPU parity of every backend primitive and every op, forward and backward:
// each case runs on the CPU and on cuda:0 and compares (gpu_test_util.h).
// Skips with a message when no CUDA device is present.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gpu_test_util.h"
#include "kiln/core/error.h"
#include "kiln/ops/ops.h"
#include "kiln/ops/random.h"

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_parity_ops {

namespace k = kiln;
using k::Tensor;
using Ins = std::vector<Tensor>;
using namespace kiln::cudatest;

namespace {
uint64_t g_seed = 500;
Tensor rn(const k::Shape& s, k::DType d = k::float32) { return k::random::normal(s, 0, 1, d, g_seed++); }
Tensor pos(const k::Shape& s, k::DType d = k::float32) { return k::random::uniform(s, 0.5, 2.0, d, g_seed++); }
Tensor away(const k::Shape& s, k::DType d = k::float32) {
  Tensor x = rn(s, d);
  return x + 0.2 * k::sign(x);
}
Tensor ints(const k::Shape& s, int lo, int hi, k::DType d = k::int32) {
  return k::cast(k::floor(k::random::uniform(s, lo, hi, k::float64, g_seed++)), d);
}
}  // namespace

TEST_CASE("GPU parity: host <-> device copies of every dtype") {
  KILN_REQUIRE_GPU("copy parity");
  for (k::DType d : {k::float32, k::float64, k::int32, k::int64, k::uint8, k::bool_}) {
    Tensor x = k::cast(ints({3, 5}, -3, 100, k::int64), d);
    Tensor g = x.to(gpu());
    CHECK(g.device() == gpu());
    CHECK(g.dtype() == d);
    check_close("round trip " + k::dtype_name(d), x, g.to(k::Device::cpu()), {0, 0});
    check_close("device clone " + k::dtype_name(d), x, g.clone().to(k::Device::cpu()), {0, 0});
  }
  // Larger than one pinned staging chunk (4 MiB), and empty.
  Tensor big = rn({3, 1000, 1000});
  check_close("12 MB round trip", big, big.to(gpu()).to(k::Device::cpu()), {0, 0});
  Tensor empty = Tensor::empty({0, 4});
  CHECK(empty.to(gpu()).to(k::Device::cpu()).shape() == k::Shape{0, 4});
}

TEST_CASE("device tensors refuse host access with a clear message") {
  KILN_REQUIRE_REAL_GPU("host access errors");
  Tensor g = rn({4}).to(gpu());
  CHECK_THROWS_WITH_AS(g.data<float>(), doctest::Contains("Device::cpu"), k::ValueError);
  CHECK(g.to_vector<float>().size() == 4);  // to_vector copies back first
}

TEST_CASE("GPU parity: fill, cast, creation") {
  KILN_REQUIRE_GPU("fill/cast parity");
  Tensor g = Tensor::empty({4, 3}, k::float32, gpu());
  parity("zeros_like", [](const Ins& x) { return k::zeros_like(x[0]) + x[0] * 0.0; }, {rn({4, 3})});
  parity("ones_like", [](const Ins& x) { return k::ones_like(x[0]); }, {rn({4, 3})}, std::nullopt, false);
  for (k::DType from : {k::float32, k::float64, k::int32, k::int64, k::uint8, k::bool_})
    for (k::DType to : {k::float32, k::float64, k::int32, k::int64, k::uint8, k::bool_}) {
      Tensor x = k::cast(ints({2, 7}, 0, 5, k::int64), from);  // no negatives: float -> uint8 of one is undefined
      parity("cast " + k::dtype_name(from) + " -> " + k::dtype_name(to), [to](const Ins& a) { return k::cast(a[0], to); },
             {x}, Tol{0, 0}, false);
    }
  parity("cast gradient", [](const Ins& a) { return k::cast(k::cast(a[0], k::float64), k::float32); }, {rn({5})});
}

TEST_CASE("GPU parity: unary ops, forward and backward") {
  KILN_REQUIRE_GPU("unary op parity");
  for (k::DType d : {k::float32, k::float64}) {
    const std::string t = " " + k::dtype_name(d);
    const k::Shape s{3, 4, 5};
    parity("neg" + t, [](const Ins& x) { return k::neg(x[0]); }, {rn(s, d)});
    parity("abs" + t, [](const Ins& x) { return k::abs(x[0]); }, {away(s, d)});
    parity("sign" + t, [](const Ins& x) { return k::sign(x[0]); }, {away(s, d)});
    parity("exp" + t, [](const Ins& x) { return k::exp(x[0]); }, {rn(s, d)});
    parity("log" + t, [](const Ins& x) { return k::log(x[0]); }, {pos(s, d)});
    parity("log1p" + t, [](const Ins& x) { return k::log1p(x[0]); }, {pos(s, d)});
    parity("expm1" + t, [](const Ins& x) { return k::expm1(x[0]); }, {rn(s, d)});
    parity("sqrt" + t, [](const Ins& x) { return k::sqrt(x[0]); }, {pos(s, d)});
    parity("rsqrt" + t, [](const Ins& x) { return k::rsqrt(x[0]); }, {pos(s, d)});
    parity("square" + t, [](const Ins& x) { return k::square(x[0]); }, {rn(s, d)});
    parity("sin" + t, [](const Ins& x) { return k::sin(x[0]); }, {rn(s, d)});
    parity("cos" + t, [](const Ins& x) { return k::cos(x[0]); }, {rn(s, d)});
    parity("tanh" + t, [](const Ins& x) { return k::tanh(x[0]); }, {rn(s, d)});
    parity("erf" + t, [](const Ins& x) { return k::erf(x[0]); }, {rn(s, d)});
    parity("sigmoid" + t, [](const Ins& x) { return k::sigmoid(x[0]); }, {rn(s, d) * 10.0});
    parity("relu" + t, [](const Ins& x) { return k::relu(x[0]); }, {away(s, d)});
    parity("softplus" + t, [](const Ins& x) { return k::softplus(x[0]); }, {rn(s, d) * 30.0});
    parity("floor" + t, [](const Ins& x) { return k::floor(x[0]); }, {rn(s, d) * 3.0});
    // Half-way values round to even on both devices.
    parity("round" + t, [](const Ins& x) { return k::round(x[0]); },
           {k::cast(Tensor({-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49, 3.7}), d)});
  }
  Tensor special({0.f, 1.f, -1.f, NAN, INFINITY, -INFINITY});
  parity("isnan", [](const Ins& x) { return k::isnan(x[0]); }, {special}, Tol{0, 0}, false);
  parity("isfinite", [](const Ins& x) { return k::isfinite(x[0]); }, {special}, Tol{0, 0}, false);
  parity("exp of inf/nan", [](const Ins& x) { return k::exp(x[0]); }, {special}, std::nullopt, false);
  parity("logical_not", [](const Ins& x) { return k::logical_not(x[0] > 0.0); }, {rn({7})}, Tol{0, 0}, false);
  for (k::DType d : {k::int32, k::int64}) {
    Tensor x = ints({4, 6}, -9, 9, d);
    parity("int neg", [](const Ins& a) { return k::neg(a[0]); }, {x}, Tol{0, 0});
    parity("int abs", [](const Ins& a) { return k::abs(a[0]); }, {x}, Tol{0, 0});
    parity("int sign", [](const Ins& a) { return k::sign(a[0]); }, {x}, Tol{0, 0});
    parity("int square", [](const Ins& a) { return k::square(a[0]); }, {x}, Tol{0, 0});
    parity("int relu", [](const Ins& a) { return k::relu(a[0]); }, {x}, Tol{0, 0});
    parity("isnan int", [](const Ins& a) { return k::isnan(a[0]); }, {x}, Tol{0, 0});
  }
  // The same dtype errors as the CPU backend.
  Tensor gi = ints({3}, 0, 5).to(gpu());
  CHECK_THROWS_AS(k::exp(gi), k::TypeError);
  CHECK_THROWS_AS(k::neg((gi > 1.0)), k::TypeError);
}

TEST_CASE("GPU parity: broadcasting binary ops, forward and backward") {
  KILN_REQUIRE_GPU("binary op parity");
  const std::vector<std::pair<k::Shape, k::Shape>> cases = {
      {{3, 4}, {3, 4}}, {{3, 1}, {1, 4}}, {{2, 3, 4}, {4}}, {{}, {2, 3}}, {{2, 1, 4}, {3, 1}}, {{5}, {}},
      {{2, 3, 4, 5}, {3, 1, 5}}, {{64, 32}, {32}}};
  for (k::DType d : {k::float32, k::float64})
    for (const auto& [sa, sb] : cases) {
      const std::string t = " " + sa.to_string() + " " + sb.to_string() + " " + k::dtype_name(d);
      parity("add" + t, [](const Ins& x) { return k::add(x[0], x[1]); }, {rn(sa, d), rn(sb, d)});
      parity("subtract" + t, [](const Ins& x) { return k::subtract(x[0], x[1]); }, {rn(sa, d), rn(sb, d)});
      parity("multiply" + t, [](const Ins& x) { return k::multiply(x[0], x[1]); }, {rn(sa, d), rn(sb, d)});
      parity("divide" + t, [](const Ins& x) { return k::divide(x[0], x[1]); }, {rn(sa, d), pos(sb, d)});
      parity("pow" + t, [](const Ins& x) { return k::pow(x[0], x[1]); }, {pos(sa, d), rn(sb, d)});
      parity("maximum" + t, [](const Ins& x) { return k::maximum(x[0], x[1]); }, {rn(sa, d), rn(sb, d)});
      parity("minimum" + t, [](const Ins& x) { return k::minimum(x[0], x[1]); }, {rn(sa, d), rn(sb, d)});
      parity("floor_mod" + t, [](const Ins& x) { return k::floor_mod(x[0], x[1]); }, {rn(sa, d), pos(sb, d)});
      parity("floor_mod negative divisor" + t, [](const Ins& x) { return x[0] % (0.0 - x[1]); }, {rn(sa, d), pos(sb, d)});
      for (auto [name, f] : std::vector<std::pair<std::string, Fn>>{
               {"equal", [](const Ins& x) { return k::equal(k::round(x[0]), k::round(x[1])); }},
               {"not_equal", [](const Ins& x) { return k::not_equal(k::round(x[0]), k::round(x[1])); }},
               {"less", [](const Ins& x) { return k::less(x[0], x[1]); }},
               {"less_equal", [](const Ins& x) { return k::less_equal(x[0], x[1]); }},
               {"greater", [](const Ins& x) { return k::greater(x[0], x[1]); }},
               {"greater_equal", [](const Ins& x) { return k::greater_equal(x[0], x[1]); }},
               {"logical_and", [](const Ins& x) { return k::logical_and(x[0] > 0.0, x[1] > 0.0); }},
               {"logical_or", [](const Ins& x) { return k::logical_or(x[0] > 0.0, x[1] > 0.0); }}})
        parity(name + t, f, {rn(sa, d), rn(sb, d)}, Tol{0, 0}, false);
    }
  // NaN wins maximum/minimum on both devices.
  Tensor a({1.f, NAN, 3.f}), b({NAN, 2.f, 1.f});
  parity("maximum NaN", [](const Ins& x) { return k::maximum(x[0], x[1]); }, {a, b}, std::nullopt, false);
  parity("minimum NaN", [](const Ins& x) { return k::minimum(x[0], x[1]); }, {a, b}, std::nullopt, false);
  // Integers: floor division with negative operands, pow, comparisons.
  for (k::DType d : {k::int32, k::int64, k::uint8}) {
    Tensor x = ints({4, 5}, d == k::uint8 ? 0 : -20, 20, d), y = ints({5}, 1, 6, d);
    parity("int add", [](const Ins& v) { return k::add(v[0], v[1]); }, {x, y}, Tol{0, 0});
    parity("int multiply", [](const Ins& v) { return k::multiply(v[0], v[1]); }, {x, y}, Tol{0, 0});
    parity("int floor divide", [](const Ins& v) { return k::divide(v[0], v[1]); }, {x, y}, Tol{0, 0});
    parity("int floor_mod", [](const Ins& v) { return k::floor_mod(v[0], v[1]); }, {x, y}, Tol{0, 0});
    parity("int less", [](const Ins& v) { return k::less(v[0], v[1]); }, {x, y}, Tol{0, 0});
  }
  parity("int pow", [](const Ins& v) { return k::pow(v[0], v[1]); }, {ints({6}, -3, 4), ints({6}, 0, 4)}, Tol{0, 0});
  parity("clip", [](const Ins& x) { return k::clip(x[0], -0.5, 0.7); }, {rn({4, 6})});
  parity("scalar ops", [](const Ins& x) { return (x[0] * 2.0 + 1.0) / 3.0 - 0.25; }, {rn({4, 6})});
  parity("relu_grad via relu", [](const Ins& x) { return k::relu(x[0] * x[0] - 0.5); }, {rn({50})});
}

TEST_CASE("GPU parity: reductions, arg reductions, where") {
  KILN_REQUIRE_GPU("reduction parity");
  for (k::DType d : {k::float32, k::float64}) {
    Tensor x = rn({4, 5, 6}, d);
    for (const auto& [name, axes] : std::vector<std::pair<std::string, k::Axes>>{
             {"all", k::Axes()}, {"0", k::Axes(0)}, {"-1", k::Axes(-1)}, {"1", k::Axes(1)}, {"0,2", k::Axes({0, 2})}}) {
      const std::string t = " axes " + name + " " + k::dtype_name(d);
      parity("sum" + t, [axes](const Ins& v) { return k::sum(v[0], axes); }, {x});
      parity("mean keepdims" + t, [axes](const Ins& v) { return k::mean(v[0], axes, true); }, {x});
      parity("max" + t, [axes](const Ins& v) { return k::max(v[0], axes); }, {x});
      parity("min" + t, [axes](const Ins& v) { return k::min(v[0], axes); }, {x});
      parity("prod" + t, [axes](const Ins& v) { return k::prod(v[0], axes); }, {pos({4, 5, 6}, d)});
      parity("var" + t, [axes](const Ins& v) { return k::var(v[0], axes); }, {x});
      parity("std" + t, [axes](const Ins& v) { return k::std(v[0], axes); }, {x});
      parity("logsumexp" + t, [axes](const Ins& v) { return k::logsumexp(v[0], axes); }, {x});
    }
  }
  // Long reductions take the two-pass (chunked) path on the GPU.
  parity("sum of a long row", [](const Ins& v) { return k::sum(v[0], k::Axes(1)); }, {rn({2, 300000})}, Tol{1e-3, 1e-3});
  parity("sum over a long batch axis", [](const Ins& v) { return k::sum(v[0], k::Axes(0)); }, {rn({200000, 3})},
         Tol{1e-3, 1e-3});
  parity("max of everything", [](const Ins& v) { return k::max(v[0]); }, {rn({1000, 999})});
  parity("mean over axes 0,1 of NHWC", [](const Ins& v) { return k::mean(v[0], k::Axes({0, 1, 2})); },
         {rn({64, 13, 13, 32})}, Tol{1e-4, 1e-5});
  parity("int sum", [](const Ins& v) { return k::sum(v[0], k::Axes(0)); }, {ints({50, 7}, -100, 100, k::int64)}, Tol{0, 0});
  parity("max with NaN", [](const Ins& v) { return k::max(v[0], k::Axes(1)); },
         {Tensor({{1.f, NAN, 3.f}, {4.f, 5.f, 6.f}})}, std::nullopt, false);
  parity("sum of empty axis", [](const Ins& v) { return k::sum(v[0], k::Axes(1)); }, {Tensor::empty({3, 0})});
  CHECK_THROWS_AS(k::sum((rn({3}) > 0.0).to(gpu())), k::TypeError);
  for (int axis : {0, 1, -1}) {
    Tensor x = k::round(rn({6, 7, 5}) * 2.0);  // ties: the first index wins on both devices
    parity("argmax " + std::to_string(axis), [axis](const Ins& v) { return k::argmax(v[0], axis); }, {x}, Tol{0, 0});
    parity("argmin " + std::to_string(axis), [axis](const Ins& v) { return k::argmin(v[0], axis); }, {x}, Tol{0, 0});
  }
  parity("where", [](const Ins& v) { return k::where(v[0] > 0.0, v[1], v[2]); }, {rn({4, 1}), rn({4, 5}), rn({5})});
}

TEST_CASE("GPU parity: shape and indexing ops") {
  KILN_REQUIRE_GPU("array op parity");
  Tensor x = rn({2, 3, 4});
  parity("reshape", [](const Ins& v) { return k::reshape(v[0], {4, 6}); }, {x});
  parity("transpose", [](const Ins& v) { return k::transpose(v[0], {2, 0, 1}); }, {x});
  parity("expand/squeeze", [](const Ins& v) { return k::squeeze(k::expand_dims(v[0], 1), {1}); }, {x});
  parity("slice with steps", [](const Ins& v) { return v[0][{k::Slice(1, std::nullopt), k::Slice(std::nullopt, std::nullopt, 2), k::Slice(3, 0, -1)}]; }, {x});
  parity("integer index", [](const Ins& v) { return v[0][1]; }, {x});
  parity("concat", [](const Ins& v) { return k::concat({v[0], v[1]}, 1); }, {x, rn({2, 5, 4})});
  parity("stack", [](const Ins& v) { return k::stack({v[0], v[1]}, 0); }, {x, rn({2, 3, 4})});
  parity("split", [](const Ins& v) { return k::split(v[0], 2, 2)[1]; }, {x});
  parity("broadcast_to", [](const Ins& v) { return k::broadcast_to(v[0], {5, 3, 4}); }, {rn({3, 1})});
  parity("tile", [](const Ins& v) { return k::tile(v[0], {2, 3}); }, {rn({3, 2})});
  parity("flatten", [](const Ins& v) { return k::flatten(v[0]); }, {x});
  for (k::DType id : {k::int32, k::int64}) {
    Tensor idx = k::cast(Tensor({2, 0, 2, 1, -1}), id);  // repeats and a negative index
    parity("gather axis 0", [](const Ins& v) { return k::gather(v[0], v[1], 0); }, {rn({3, 4}), idx});
    parity("gather axis 1", [](const Ins& v) { return k::gather(v[0], v[1], 1); }, {rn({2, 3, 4}), idx});
    parity("gather int params", [](const Ins& v) { return k::gather(v[0], v[1], 0); }, {ints({3, 4}, 0, 9), idx}, Tol{0, 0});
    parity("one_hot", [](const Ins& v) { return k::one_hot(v[0], 4); }, {k::cast(Tensor({0, 3, 5, -1, 2}), id)}, Tol{0, 0});
  }
  // Embedding-sized gather/scatter: many repeats accumulate atomically.
  parity("gather with 5000 repeats", [](const Ins& v) { return k::gather(v[0], v[1], 0); },
         {rn({10, 16}), ints({5000}, 0, 10)}, Tol{1e-4, 1e-4});
}

TEST_CASE("GPU parity: matmul through cuBLAS") {
  KILN_REQUIRE_GPU("matmul parity");
  for (k::DType d : {k::float32, k::float64}) {
    parity("matmul 2d", [](const Ins& v) { return k::matmul(v[0], v[1]); }, {rn({5, 7}, d), rn({7, 3}, d)});
    parity("matmul ta", [](const Ins& v) { return k::matmul(v[0], v[1], true, false); }, {rn({7, 5}, d), rn({7, 3}, d)});
    parity("matmul tb", [](const Ins& v) { return k::matmul(v[0], v[1], false, true); }, {rn({5, 7}, d), rn({3, 7}, d)});
    parity("matmul ta tb", [](const Ins& v) { return k::matmul(v[0], v[1], true, true); }, {rn({7, 5}, d), rn({3, 7}, d)});
    parity("batched", [](const Ins& v) { return k::matmul(v[0], v[1]); }, {rn({4, 5, 7}, d), rn({4, 7, 3}, d)});
    parity("broadcast batch", [](const Ins& v) { return k::matmul(v[0], v[1]); }, {rn({4, 5, 7}, d), rn({7, 3}, d)});
    parity("large", [](const Ins& v) { return k::matmul(v[0], v[1]); }, {rn({256, 784}, d), rn({784, 128}, d)},
           d == k::float32 ? Tol{1e-3, 1e-4} : kF64);
  }
  parity("int matmul", [](const Ins& v) { return k::matmul(v[0], v[1]); }, {ints({3, 4}, -5, 5), ints({4, 2}, -5, 5)},
         Tol{0, 0});
}

TEST_CASE("GPU parity: softmax, cross-entropy, dropout") {
  KILN_REQUIRE_GPU("nn op parity");
  for (k::DType d : {k::float32, k::float64}) {
    parity("softmax", [](const Ins& v) { return k::softmax(v[0]); }, {rn({8, 10}, d) * 5.0});
    parity("softmax long rows", [](const Ins& v) { return k::softmax(v[0]); }, {rn({3, 5000}, d)});
    parity("softmax middle axis", [](const Ins& v) { return k::softmax(v[0], 1); }, {rn({2, 6, 5}, d)});
    parity("log_softmax", [](const Ins& v) { return k::log_softmax(v[0]); }, {rn({8, 10}, d) * 5.0});
    parity("softmax with -inf", [](const Ins& v) { return k::softmax(v[0]); },
           {k::cast(Tensor({{-INFINITY, 0.f, 1.f}, {-INFINITY, -INFINITY, -INFINITY}}), d)}, std::nullopt, false);
    for (k::DType ld : {k::int32, k::int64, k::uint8})
      parity("sparse xent", [](const Ins& v) { return k::sparse_softmax_cross_entropy_with_logits(v[1], v[0]); },
             {rn({16, 10}, d) * 3.0, ints({16}, 0, 10, ld)});
  }
  if (k::cuda::is_available() && !emulated()) {
    // An out-of-range label: ValueError on the CPU, NaN on the GPU (as TF on GPU).
    Tensor logits = rn({2, 3}).to(gpu());
    Tensor bad = Tensor({0, 7}).to(gpu());
    auto loss = k::sparse_softmax_cross_entropy_with_logits(bad, logits).to_vector<float>();
    CHECK_FALSE(std::isnan(loss[0]));
    CHECK(std::isnan(loss[1]));
  }
  // Dropout: the GPU's Philox mask differs from the CPU's, so check its law.
  k::random::set_seed(3);
  Tensor x = k::ones({1000, 100}).to(gpu());
  Tensor y;
  Tensor grad;
  {
    k::GradientTape tape;
    tape.watch(x);
    y = k::dropout(x, 0.3);
    grad = *tape.gradient(k::sum(y), k::Source(x));
  }
  auto v = y.to_vector<float>();
  int kept = 0;
  for (float e : v) {
    REQUIRE((e == 0.f || std::abs(e - 1.f / 0.7f) < 1e-6f));
    kept += e != 0.f;
  }
  CHECK(kept / 100000.0 == doctest::Approx(0.7).epsilon(0.02));
  check_close("dropout gradient is the mask", y.to(k::Device::cpu()), grad.to(k::Device::cpu()), {0, 0});
}

TEST_CASE("GPU parity: conv2d through cuDNN (and GEMM for float64)") {
  KILN_REQUIRE_GPU("conv2d parity");
  struct Case {
    k::Shape x, w;
    k::Conv2DOptions o;
  };
  const std::vector<Case> cases = {
      {{2, 9, 9, 3}, {3, 3, 3, 8}, {}},
      {{2, 9, 9, 3}, {3, 3, 3, 8}, {.padding = "same"}},
      {{2, 10, 9, 3}, {3, 3, 3, 4}, {.strides = {2, 2}, .padding = "same"}},
      {{2, 8, 8, 2}, {2, 2, 2, 4}, {.padding = "same"}},  // asymmetric: cuDNN needs explicit padding
      {{1, 11, 11, 2}, {3, 3, 2, 3}, {.padding = "same", .dilation = {2, 2}}},
      {{2, 7, 7, 5}, {1, 1, 5, 6}, {}},  // pointwise
      {{2, 9, 8, 1}, {4, 3, 1, 2}, {.strides = {2, 3}}},
      {{8, 28, 28, 1}, {3, 3, 1, 32}, {}},  // the guide CNN's first layer
  };
  for (k::DType d : {k::float32, k::float64})
    for (const auto& c : cases) {
      const std::string t = " x" + c.x.to_string() + " w" + c.w.to_string() + " " + c.o.padding + " " + k::dtype_name(d);
      parity("conv2d" + t, [o = c.o](const Ins& v) { return k::conv2d(v[0], v[1], o); }, {rn(c.x, d), rn(c.w, d)},
             d == k::float32 ? Tol{1e-3, 1e-4} : kF64);
    }
}

TEST_CASE("GPU parity: pooling") {
  KILN_REQUIRE_GPU("pooling parity");
  struct Case {
    k::Shape x;
    k::Pool2DOptions o;
  };
  const std::vector<Case> cases = {
      {{2, 8, 8, 3}, {}},
      {{2, 9, 7, 3}, {}},
      {{2, 9, 7, 3}, {.padding = "same"}},
      {{2, 7, 7, 2}, {.pool_size = {3, 3}, .strides = {1, 1}}},  // overlapping windows
      {{2, 7, 7, 2}, {.pool_size = {3, 3}, .strides = {2, 2}, .padding = "same"}},
      {{1, 26, 26, 32}, {}},
  };
  for (k::DType d : {k::float32, k::float64})
    for (const auto& c : cases) {
      const std::string t = " " + c.x.to_string() + " " + c.o.padding + " " + k::dtype_name(d);
      parity("max_pool2d" + t, [o = c.o](const Ins& v) { return k::max_pool2d(v[0], o); }, {rn(c.x, d)});
      parity("avg_pool2d" + t, [o = c.o](const Ins& v) { return k::avg_pool2d(v[0], o); }, {rn(c.x, d)});
    }
  // Without a tape no argmax is written (inference); a NaN wins its window on both devices.
  for (const auto& c : cases) {
    const Tensor x = rn(c.x);
    const Tensor with_nans = k::where(k::random::uniform(c.x, 0, 1, k::float32, 99) < 0.05, Tensor(std::nanf("")), x);
    for (const Tensor& in : {x, with_nans})
      check_close("max_pool2d without a tape " + c.x.to_string() + " " + c.o.padding, k::max_pool2d(in, c.o),
                  k::max_pool2d(in.to(gpu()), c.o).to(k::Device::cpu()), {0, 0});
  }
}

TEST_CASE("mixing devices in one op is a clear error") {
  KILN_REQUIRE_REAL_GPU("device mixing errors");
  Tensor a = rn({3}), b = rn({3}).to(gpu());
  CHECK_THROWS_WITH_AS(k::add(a, b), doctest::Contains("cuda:0"), k::ValueError);
  CHECK_THROWS_WITH_AS(k::matmul(rn({2, 3}), rn({3, 2}).to(gpu())), doctest::Contains("cpu"), k::ValueError);
  CHECK_THROWS_AS(k::sparse_softmax_cross_entropy_with_logits(Tensor({0, 1, 2}), b.reshape({1, 3}).reshape({3, 1}) * 1.0),
                  k::ValueError);
}

}  // namespace test_parity_ops

namespace test_parity_ops {

TEST_CASE("GPU parity: the Fourier transforms (the CPU's FFT behind a device without one)") {
  KILN_REQUIRE_GPU("fft parity");
  for (k::DType d : {k::float32, k::float64}) {
    const std::string t = " " + k::dtype_name(d);
    auto both = [](const k::ComplexPair& p) { return k::concat({p.first, p.second}, -1); };
    parity("fft" + t, [&](const Ins& v) { return both(k::fft(v[0], v[1])); }, {rn({3, 7}, d), rn({3, 7}, d)});
    parity("ifft2" + t, [&](const Ins& v) { return both(k::ifft2(v[0], v[1])); }, {rn({2, 3, 5}, d), rn({2, 3, 5}, d)});
    parity("rfft" + t, [&](const Ins& v) { return both(k::rfft(v[0], 12)); }, {rn({3, 9}, d)});
    parity("irfft" + t, [](const Ins& v) { return k::irfft(v[0], v[1], 9); }, {rn({3, 5}, d), rn({3, 5}, d)});
    parity("stft" + t, [&](const Ins& v) { return both(k::stft(v[0], 7, 3, 8)); }, {rn({2, 30}, d)});
    parity("istft" + t, [](const Ins& v) { return k::istft(v[0], v[1], 8, 3, 8); }, {rn({2, 6, 5}, d), rn({2, 6, 5}, d)});
    parity("arctan2" + t, [](const Ins& v) { return k::arctan2(v[0], v[1]); }, {rn({4, 5}, d), away({4, 5}, d)});
  }
}

}  // namespace test_parity_ops
