// Host-only tests of the CUDA backend: they run on every machine, GPU or not.
// Size classes of the caching allocator, Philox against the Random123
// known-answer vectors, the strided/reduction plan builders the kernels
// consume, and the public kiln/backend/cuda.h API's behaviour without a device.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "backend/cuda/philox.h"
#include "backend/cuda/plan.h"
#include "backend/cuda/size_classes.h"
#include "kiln/backend/cuda.h"
#include "kiln/core/error.h"
#include "kiln/core/tensor.h"

namespace kc = kiln::cuda;

TEST_CASE("allocator size classes: 512-byte steps up to 1 MiB, quarter powers of two above") {
  CHECK(kc::size_class(0) == 512);
  CHECK(kc::size_class(1) == 512);
  CHECK(kc::size_class(512) == 512);
  CHECK(kc::size_class(513) == 1024);
  CHECK(kc::size_class(4000) == 4096);
  CHECK(kc::size_class(1 << 20) == (1 << 20));
  CHECK(kc::size_class((1 << 20) + 1) == (1 << 20) + (1 << 18));  // 1.25 MiB
  CHECK(kc::size_class(3 << 20) == (3u << 20));                    // 2 MiB · 1.5
  CHECK(kc::size_class((3 << 20) + 1) == (7u << 19));              // 2 MiB · 1.75
  CHECK(kc::size_class(5 << 20) == (5u << 20));                    // 4 MiB · 1.25
  CHECK(kc::size_class(std::size_t(1) << 33) == (std::size_t(1) << 33));
  // Every class holds the request, is 512-aligned, wastes at most 25 %, and is
  // a fixed point (the deleter recomputes the class from the requested size).
  std::size_t prev = 0;
  for (std::size_t n = 1; n < (std::size_t(64) << 20); n = n * 5 / 4 + 7) {
    const std::size_t c = kc::size_class(n);
    INFO("n = ", n, ", class = ", c);
    CHECK(c >= n);
    CHECK(c % 512 == 0);
    CHECK(c >= prev);
    CHECK(kc::size_class(c) == c);
    if (n > (1u << 20)) CHECK(c - n <= n / 4);
    prev = c;
  }
}

TEST_CASE("Philox4x32-10 matches the Random123 known-answer vectors") {
  // Random123 kat_vectors: counter (4 words), key (2 words) -> output (4 words).
  auto z = kc::philox4x32_10(0, 0, 0, 0, 0, 0);
  CHECK(z.v[0] == 0x6627e8d5u);
  CHECK(z.v[1] == 0xe169c58du);
  CHECK(z.v[2] == 0xbc57ac4cu);
  CHECK(z.v[3] == 0x9b00dbd8u);
  auto f = kc::philox4x32_10(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu);
  CHECK(f.v[0] == 0x408f276du);
  CHECK(f.v[1] == 0x41c83b0eu);
  CHECK(f.v[2] == 0xa20bc7c6u);
  CHECK(f.v[3] == 0x6d5451fdu);
  auto pi = kc::philox4x32_10(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u);
  CHECK(pi.v[0] == 0xd16cfe09u);
  CHECK(pi.v[1] == 0x94fdccebu);
  CHECK(pi.v[2] == 0x5001e420u);
  CHECK(pi.v[3] == 0x24126ea1u);
}

TEST_CASE("dropout bits: element i uses word i%4 of Philox block i/4 keyed by the seed") {
  const uint64_t seed = 0x0123456789abcdefULL;
  for (uint64_t i = 0; i < 12; ++i) {
    auto r = kc::philox4x32_10(static_cast<uint32_t>(i / 4), 0, 0, 0, 0x89abcdefu, 0x01234567u);
    CHECK(kc::dropout_bits(seed, i) == r.v[i % 4]);
  }
  // The counter's high word carries elements past 2^34.
  const uint64_t far = (uint64_t(1) << 36) + 5;
  auto r = kc::philox4x32_10(static_cast<uint32_t>(far / 4), static_cast<uint32_t>((far / 4) >> 32), 0, 0, 0x89abcdefu,
                             0x01234567u);
  CHECK(kc::dropout_bits(seed, far) == r.v[1]);
  CHECK(kc::dropout_threshold(0.0) == 0u);
  CHECK(kc::dropout_threshold(0.5) == 0x80000000u);
  CHECK(kc::dropout_threshold(0.25) == 0x40000000u);
  // The bits are uniform enough that the kept fraction is 1 - rate.
  for (double rate : {0.1, 0.5, 0.9}) {
    const uint32_t th = kc::dropout_threshold(rate);
    const int n = 200000;
    int kept = 0;
    for (int i = 0; i < n; ++i) kept += kc::dropout_bits(7, static_cast<uint64_t>(i)) >= th;
    CHECK(static_cast<double>(kept) / n == doctest::Approx(1 - rate).epsilon(0.01));
  }
  // Different seeds give different masks.
  int same = 0;
  for (uint64_t i = 0; i < 1000; ++i) same += (kc::dropout_bits(1, i) >= 0x80000000u) == (kc::dropout_bits(2, i) >= 0x80000000u);
  CHECK(same < 600);
}

TEST_CASE("strided plans merge contiguous dimensions like the CPU backend") {
  using V = std::vector<int64_t>;
  // Same-shape contiguous add: one flat dimension.
  auto p = kc::make_plan<3>({2, 3, 4}, {V{12, 4, 1}, V{12, 4, 1}, V{12, 4, 1}});
  CHECK(p.rank == 1);
  CHECK(p.n == 24);
  CHECK(p.shape[0] == 24);
  CHECK(p.stride[2][0] == 1);
  // (2,3,4) + (4): the bias broadcast merges the two outer dims.
  p = kc::make_plan<3>({2, 3, 4}, {V{12, 4, 1}, V{12, 4, 1}, V{0, 0, 1}});
  REQUIRE(p.rank == 2);
  CHECK(p.shape[0] == 6);
  CHECK(p.shape[1] == 4);
  CHECK(p.stride[0][0] == 4);
  CHECK(p.stride[2][0] == 0);
  CHECK(p.stride[2][1] == 1);
  // A transpose cannot merge.
  p = kc::make_plan<2>({3, 4}, {V{4, 1}, V{1, 3}});
  CHECK(p.rank == 2);
  CHECK(p.stride[1][0] == 1);
  CHECK(p.stride[1][1] == 3);
  // Size-1 dimensions vanish; a scalar is one element.
  p = kc::make_plan<2>({1, 5, 1}, {V{5, 1, 1}, V{0, 1, 0}});
  CHECK(p.rank == 1);
  CHECK(p.shape[0] == 5);
  p = kc::make_plan<2>({}, {V{}, V{}});
  CHECK(p.rank == 1);
  CHECK(p.n == 1);
  // Empty tensors: n == 0, so no kernel is launched.
  p = kc::make_plan<2>({3, 0}, {V{0, 1}, V{0, 1}});
  CHECK(p.n == 0);
  // More non-mergeable dimensions than the kernels take.
  V shape(9, 2), st(9);
  for (int i = 0; i < 9; ++i) st[i] = int64_t(1) << (2 * (8 - i));  // stride 4^k: never contiguous
  CHECK_THROWS_AS(kc::make_plan<1>(shape, {st}), std::length_error);
}

TEST_CASE("reduction plans split kept and reduced dimensions") {
  // Sum over the last axis: contiguous rows.
  auto r = kc::make_reduce_plan({4, 5, 6}, {4, 5, 1});
  CHECK(r.rows);
  CHECK(r.n_out == 20);
  CHECK(r.n_red == 6);
  CHECK(r.kept_rank == 1);
  CHECK(r.kept_stride[0] == 6);
  // Sum over the batch axis (a bias gradient): kept columns are contiguous.
  r = kc::make_reduce_plan({4, 5, 6}, {1, 5, 6});
  CHECK_FALSE(r.rows);
  CHECK(r.n_out == 30);
  CHECK(r.kept_rank == 1);
  CHECK(r.kept_stride[0] == 1);
  CHECK(r.red_rank == 1);
  CHECK(r.red_stride[0] == 30);
  // Everything: one output, one contiguous row.
  r = kc::make_reduce_plan({4, 5, 6}, {1, 1, 1});
  CHECK(r.rows);
  CHECK(r.n_out == 1);
  CHECK(r.kept_rank == 0);
  CHECK(r.n_red == 120);
  // Axes 0 and 2: two reduced dims that cannot merge.
  r = kc::make_reduce_plan({4, 5, 6}, {1, 5, 1});
  CHECK_FALSE(r.rows);
  CHECK(r.red_rank == 2);
  CHECK(r.n_red == 24);
  CHECK(r.n_out == 5);
  // Nothing reduced (size-1 axes only): every output reads one element.
  r = kc::make_reduce_plan({4, 1}, {4, 1});
  CHECK(r.n_red == 1);
  CHECK(r.red_rank == 0);
  // An empty reduced axis: every output is the op's identity.
  r = kc::make_reduce_plan({3, 0}, {3, 1});
  CHECK(r.n_out == 3);
  CHECK(r.n_red == 0);
}

TEST_CASE("the kiln/backend/cuda.h API answers on every machine") {
  const int n = kiln::cuda::device_count();
  CHECK(n >= 0);
  CHECK(kiln::cuda::is_available() == (n > 0));
  CHECK(kiln::cuda::device_name(-1).empty());
  CHECK(kiln::cuda::device_name(n).empty());
  CHECK(kiln::cuda::memory_allocated(n) == 0);
  CHECK_NOTHROW(kiln::cuda::synchronize());
  const bool tf32 = kiln::cuda::allow_tf32();
  kiln::cuda::set_allow_tf32(!tf32);
  CHECK(kiln::cuda::allow_tf32() == !tf32);
  kiln::cuda::set_allow_tf32(tf32);
  const bool bench = kiln::cuda::cudnn_benchmark();
  kiln::cuda::set_cudnn_benchmark(!bench);
  CHECK(kiln::cuda::cudnn_benchmark() == !bench);
  kiln::cuda::set_cudnn_benchmark(bench);
  if (n == 0) {
    MESSAGE("no CUDA device on this machine: GPU tests of this suite skip");
    // A CUDA device that is not there is a clear error, never a crash.
    kiln::Tensor x({1.f, 2.f});
    CHECK_THROWS_WITH_AS(x.to(kiln::Device::cuda(0)), doctest::Contains("cuda:0"), kiln::ValueError);
    CHECK_THROWS_AS(kiln::Tensor::empty({2}, kiln::float32, kiln::Device::cuda(0)), kiln::ValueError);
  } else {
    for (int i = 0; i < n; ++i) CHECK_FALSE(kiln::cuda::device_name(i).empty());
    MESSAGE("CUDA device 0: ", kiln::cuda::device_name(0));
  }
}
