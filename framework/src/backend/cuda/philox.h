#pragma once
// Private, std-only: Philox4x32-10 (Salmon et al., "Parallel random numbers: as
// easy as 1, 2, 3", SC'11), the counter-based generator behind GPU dropout.
// A counter-based RNG needs no state: element i's random bits are a pure
// function of (seed, i), so every CUDA thread computes its own, and the same
// seed gives the same mask on every run and every GPU. The host copy of the
// same code is checked against the Random123 known-answer vectors in
// tests/cuda/test_host.cpp.
#include <cstdint>

#if defined(__CUDACC__)
#define KILN_HD __host__ __device__ __forceinline__
#else
#define KILN_HD inline
#endif

namespace kiln::cuda {

struct Philox4 {
  uint32_t v[4];
};

KILN_HD uint32_t philox_mulhilo(uint32_t a, uint32_t b, uint32_t* hi) {
  const uint64_t p = static_cast<uint64_t>(a) * static_cast<uint64_t>(b);
  *hi = static_cast<uint32_t>(p >> 32);
  return static_cast<uint32_t>(p);
}

/// Philox4x32 with 10 rounds: counter (4 words) and key (2 words) -> 4 random words.
KILN_HD Philox4 philox4x32_10(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // multipliers
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    uint32_t hi0, hi1;
    const uint32_t lo0 = philox_mulhilo(kM0, c0, &hi0);
    const uint32_t lo1 = philox_mulhilo(kM1, c2, &hi1);
    const uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
    c0 = n0;
    c1 = n1;
    c2 = n2;
    c3 = n3;
  }
  return Philox4{{c0, c1, c2, c3}};
}

/// The 32 random bits dropout uses for element i under `seed`: block i/4 of the
/// counter stream, word i%4, keyed by the 64-bit seed.
KILN_HD uint32_t dropout_bits(uint64_t seed, uint64_t i) {
  const uint64_t block = i >> 2;
  const Philox4 r = philox4x32_10(static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0u, 0u,
                                  static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
  return r.v[i & 3];
}

/// Elements whose bits are below this are dropped: P(drop) = rate. Same formula as the CPU backend.
inline uint32_t dropout_threshold(double rate) {
  const double t = rate * 4294967296.0;
  return t >= 4294967295.0 ? 0xFFFFFFFFu : static_cast<uint32_t>(t);
}

}  // namespace kiln::cuda
