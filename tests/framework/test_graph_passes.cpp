// The passes a trace goes through before it is replayed: element-wise chains
// fused into one pass and variable reads without copies. Every case compares
// replays with eager execution of the same body, bit for bit where the
// kernels are the same.
#include <doctest/doctest.h>
#include <kiln/kiln.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

// The file's own namespace: the unity build compiles a suite's files together.
namespace test_graph_passes {

namespace k = kiln;

namespace {

int count_type(const std::vector<k::GraphOp>& ops, const std::string& type) {
  int n = 0;
  for (const auto& op : ops) n += op.type == type;
  return n;
}

k::Tensor chain(const k::Tensor& x, const k::Tensor& s) {
  // Unary and binary ops, a broadcast scalar, and an in-place-looking reuse of x.
  k::Tensor y = k::sigmoid(x * 2.f + s);
  return y - k::relu(x) * x + k::sqrt(k::abs(y)) / (k::exp(-x) + 1.f);
}

struct KernelMode {
  explicit KernelMode(k::CpuKernels m) { k::set_cpu_kernels(m); }
  ~KernelMode() { k::set_cpu_kernels(k::CpuKernels::fast); }
};

}  // namespace

TEST_CASE("graph passes: an element-wise chain runs as one fused pass with the eager values, bit for bit") {
  auto f = k::function(chain, {.name = "chain"});
  for (int64_t n : {int64_t(7), int64_t(1000), int64_t(70000)}) {  // one block, several, and the parallel split
    k::Tensor x = k::random::normal({n}, 0.f, 2.f, k::float32, static_cast<uint64_t>(n));
    k::Tensor s(0.5f);
    const auto eager = chain(x, s).to_vector<float>();
    CHECK(f(x, s).to_vector<float>() == eager);  // traced
    k::Tensor x2 = x * 0.5f;
    CHECK(f(x2, s).to_vector<float>() == chain(x2, s).to_vector<float>());  // replayed with new values
    {
      KernelMode reference(k::CpuKernels::reference);  // replays fall back to the single-op kernels
      CHECK(f(x2, s).to_vector<float>() == chain(x2, s).to_vector<float>());
    }
  }
  // The graph of a call: its constants were computed by the trace that ran.
  f(k::Tensor({1.f, 2.f, 3.f}), k::Tensor(0.5f));
  auto cf = f.get_concrete_function(k::Tensor({1.f, 2.f, 3.f}), k::Tensor(0.5f));
  CHECK(count_type(cf.operations(), "FusedElementwise") == 0);
  CHECK(count_type(cf.operations(), "Fill") == 2);
  CHECK(count_type(cf.executed_operations(), "Fill") == 0);
  CHECK(count_type(cf.operations(), "Sigmoid") == 1);
  // Everything but the placeholders and the result is one pass.
  CHECK(count_type(cf.executed_operations(), "FusedElementwise") == 1);
  CHECK(count_type(cf.executed_operations(), "Sigmoid") == 0);
}

TEST_CASE("graph passes: integer chains fuse with wrapping arithmetic; comparisons stay separate ops") {
  auto g = [](const k::Tensor& x) { return k::where(x > 3, x * x - x, -x + 7) * 3; };
  auto f = k::function(g);
  k::Tensor x = k::Tensor({1, 5, -2, 4, 46341}, k::int32);
  CHECK(f(x).to_vector<int32_t>() == g(x).to_vector<int32_t>());
  k::Tensor x2 = k::Tensor({9, -9, 3, 0, 2}, k::int32);
  CHECK(f(x2).to_vector<int32_t>() == g(x2).to_vector<int32_t>());
  CHECK(f(x2).to_vector<int32_t>() == std::vector<int32_t>{216, 48, 12, 21, 15});
  auto cf = f.get_concrete_function(x);
  CHECK(count_type(cf.executed_operations(), "Greater") == 1);
  CHECK(count_type(cf.executed_operations(), "SelectV2") == 1);
  CHECK(count_type(cf.executed_operations(), "FusedElementwise") >= 1);
}

TEST_CASE("graph passes: a variable read not needed after a later write reads the variable in place") {
  k::Variable v(k::Tensor({1.f, 2.f}), {.name = "v"});
  // The first read feeds a Mul before v changes: no copy needed. The second read
  // is the result itself, read after the function returns.
  auto f = k::function([&](const k::Tensor& x) {
    k::Tensor before = v.value() * 1.f;
    v.assign_add(x);
    return before + v.value();
  });
  CHECK(f(k::Tensor({1.f, 1.f})).to_vector<float>() == std::vector<float>{3.f, 5.f});
  CHECK(f(k::Tensor({1.f, 1.f})).to_vector<float>() == std::vector<float>{5.f, 7.f});
  v.assign(k::Tensor({10.f, 20.f}));  // between calls: replays see it
  CHECK(f(k::Tensor({1.f, 0.f})).to_vector<float>() == std::vector<float>{21.f, 40.f});
  CHECK(v.value().to_vector<float>() == std::vector<float>{11.f, 20.f});
  auto cf = f.get_concrete_function(k::Tensor({0.f, 0.f}));
  CHECK(count_type(cf.executed_operations(), "ReadVariableOp") == 2);
}

TEST_CASE("graph passes: a snapshot read after the variable changes keeps the value it had") {
  k::Variable v(k::Tensor({1.f, 2.f}), {.name = "v"});
  auto body = [&](const k::Tensor& x) {
    k::Tensor old = v.value();
    v.assign_add(x);
    return old * 10.f + v.value();  // `old` is used after the write: it must be a copy
  };
  auto f = k::function(body);
  CHECK(f(k::Tensor({1.f, 1.f})).to_vector<float>() == std::vector<float>{12.f, 23.f});
  CHECK(f(k::Tensor({1.f, 1.f})).to_vector<float>() == std::vector<float>{23.f, 34.f});
  CHECK(f(k::Tensor({0.f, 5.f})).to_vector<float>() == std::vector<float>{33.f, 49.f});
  // A snapshot held outside across a replay keeps its values too.
  k::Tensor held = v.value();
  f(k::Tensor({1.f, 1.f}));
  CHECK(held.to_vector<float>() == std::vector<float>{3.f, 9.f});
}

TEST_CASE("graph passes: optimize = false replays the trace as recorded, with the same results") {
  auto plain = k::function(chain, {.name = "chain", .optimize = false});
  auto fused = k::function(chain, {.name = "chain"});
  k::Tensor x = k::random::normal({300}, 0.f, 1.f, k::float32, 5);
  k::Tensor s(-0.25f);
  plain(x, s);
  fused(x, s);
  CHECK(plain(x, s).to_vector<float>() == fused(x, s).to_vector<float>());
  CHECK(count_type(plain.get_concrete_function(x, s).executed_operations(), "FusedElementwise") == 0);
}

TEST_CASE("graph passes: arguments are read in place unless the graph may write them") {
  auto twice = k::function([](const k::Tensor& x) { return x + x; });
  for (float s : {1.f, 2.f, 3.f}) CHECK(twice(k::Tensor({s, -s})).to_vector<float>() == std::vector<float>{2 * s, -2 * s});
  auto same = k::function([](const k::Tensor& x) { return x; });
  k::Tensor a({1.f, 2.f}), b({3.f, 4.f});
  same(a);
  k::Tensor ra = same(a), rb = same(b);
  CHECK(ra.to_vector<float>() == std::vector<float>{1.f, 2.f});  // results are copies, not the arguments' buffers
  CHECK(rb.to_vector<float>() == std::vector<float>{3.f, 4.f});
  // The argument is a snapshot of a variable the function changes: it keeps the value it had.
  k::Variable v(k::Tensor({1.f, 2.f}));
  auto bump = k::function([&](const k::Tensor& x) {
    v.assign_add(k::Tensor({10.f, 10.f}));
    return x * 1.f;
  });
  CHECK(bump(v.value()).to_vector<float>() == std::vector<float>{1.f, 2.f});
  CHECK(bump(v.value()).to_vector<float>() == std::vector<float>{11.f, 12.f});
  CHECK(bump(v.value()).to_vector<float>() == std::vector<float>{21.f, 22.f});
  CHECK(v.value().to_vector<float>() == std::vector<float>{31.f, 32.f});
}

TEST_CASE("graph passes: a fused chain propagates NaN as the single-op kernels do") {
  auto g = [](const k::Tensor& x) { return k::relu(x * 2.f) + k::maximum(x, k::zeros_like(x)); };
  auto f = k::function(g);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  k::Tensor x({nan, -1.f, 2.f, -0.f});
  f(x);
  const auto got = f(x).to_vector<float>();
  CHECK(std::isnan(got[0]));
  CHECK(got[1] == 0.f);
  CHECK(got[2] == 6.f);
  CHECK(got[3] == 0.f);
  CHECK(count_type(f.get_concrete_function(x).executed_operations(), "FusedElementwise") == 1);
}

namespace {

/// The guide CNN's first layers: conv + bias + relu, a 2×2 max pool, a mask on
/// the flattened result (as dropout applies it) and a linear read-out. Returns
/// the pooled output and the loss's gradients for the kernel and the bias.
std::vector<k::Tensor> conv_pool_step(const k::Variable& w, const k::Variable& b, const k::Tensor& x,
                                      const k::Tensor& mask, const k::Tensor& readout) {
  k::GradientTape tape;
  k::Tensor pooled = k::max_pool2d(k::conv2d_bias(x, w.value(), b.value(), {}, true));
  k::Tensor h = k::reshape(pooled, k::Shape{x.shape()[0], -1}) * mask;
  k::Tensor loss = k::sum(k::square(k::matmul(h, readout)));
  auto g = tape.gradient(loss, std::vector<k::Variable>{w, b});
  return {pooled, *g[0], *g[1]};
}

}  // namespace

namespace {
// 13x13 inputs give 11x11 convolution outputs: the pool leaves the last row and column out.
// The bias pushes about half the outputs below zero, so many pool windows pass no gradient.
void check_conv_pool_fusion(int64_t c) {
  CAPTURE(c);
  const int64_t n = 5;
  k::Variable w(k::random::normal({3, 3, 1, c}, 0.f, 0.5f, k::float32, 11), {.name = "w"});
  k::Variable b(k::random::normal({c}, -0.3f, 0.3f, k::float32, 12), {.name = "b"});
  k::Tensor x = k::random::uniform({n, 13, 13, 1}, -1.f, 1.f, k::float32, 13);
  k::Tensor mask = k::cast(k::random::uniform({n, 5 * 5 * c}, 0.f, 1.f, k::float32, 14) > 0.3f, k::float32) * 2.f;
  k::Tensor readout = k::random::normal({5 * 5 * c, 3}, 0.f, 1.f, k::float32, 15);
  auto f = k::function(conv_pool_step, {.name = "conv_pool_step"});
  const auto eager = conv_pool_step(w, b, x, mask, readout);
  auto check = [&](const std::vector<k::Tensor>& got, const std::vector<k::Tensor>& want) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i].to_vector<float>() == want[i].to_vector<float>());
  };
  check(f(w, b, x, mask, readout), eager);  // traced, then replayed
  check(f(w, b, x, mask, readout), eager);
  auto cf = f.get_concrete_function(w, b, x, mask, readout);
  CHECK(count_type(cf.executed_operations(), "Conv2DBiasReluMaxPool") == 1);
  CHECK(count_type(cf.executed_operations(), "Conv2DBiasReluMaxPoolBackpropFilter") == 1);
  CHECK(count_type(cf.executed_operations(), "MaxPoolWithArgmax") == 0);
  CHECK(count_type(cf.executed_operations(), "MaxPoolGradWithArgmax") == 0);
  CHECK(count_type(cf.operations(), "MaxPoolWithArgmax") == 1);  // the graph as traced keeps both ops
  // New values through the same graph, and the reference kernels under it.
  k::Tensor x2 = x * -0.5f + 0.25f;
  check(f(w, b, x2, mask, readout), conv_pool_step(w, b, x2, mask, readout));
  {
    KernelMode reference(k::CpuKernels::reference);
    const auto want = conv_pool_step(w, b, x2, mask, readout);
    const auto got = f(w, b, x2, mask, readout);
    for (std::size_t i = 0; i < got.size(); ++i) {
      const auto g = got[i].to_vector<float>(), e = want[i].to_vector<float>();
      for (std::size_t j = 0; j < g.size(); ++j) REQUIRE(g[j] == doctest::Approx(e[j]).epsilon(1e-5));
    }
  }
  CHECK(f.tracing_count() == 1);
}
}  // namespace

TEST_CASE("graph passes: conv + bias + relu + max pool run as one pass, and so do their gradients, as eager") {
  // 16, 32 and 48 filters: one, two and three 16-channel blocks, however wide the kernel's vectors.
  for (int64_t c : {16, 32, 48}) check_conv_pool_fusion(c);
}

TEST_CASE("graph passes: the fused conv + pool of an inference graph equals eager, bit for bit") {
  for (int64_t c : {16, 32}) {
    CAPTURE(c);
    k::Variable w(k::random::normal({3, 3, 1, c}, 0.f, 0.5f, k::float32, 21), {.name = "w"});
    k::Variable b(k::random::normal({c}, -0.3f, 0.3f, k::float32, 22), {.name = "b"});
    auto forward = [&](const k::Tensor& x) { return k::max_pool2d(k::conv2d_bias(x, w.value(), b.value(), {}, true)); };
    auto f = k::function(forward, {.name = "conv_pool_forward"});
    for (uint64_t seed : {23, 24}) {
      k::Tensor x = k::random::uniform({3, 12, 12, 1}, -1.f, 1.f, k::float32, seed);
      CHECK(f(x).to_vector<float>() == forward(x).to_vector<float>());
    }
    CHECK(count_type(f.get_concrete_function(k::TensorSpec({3, 12, 12, 1})).executed_operations(),
                     "Conv2DBiasReluMaxPool") == 1);
  }
}

}  // namespace test_graph_passes
