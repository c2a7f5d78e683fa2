#pragma once
// Seeded sampling that gives the same result with every standard library: it
// depends only on the mt19937_64 stream, which the standard fixes
// (std::uniform_int_distribution and std::shuffle do not), so a dataset split
// by a seed is the same split everywhere.
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace kiln::datasets::detail {

/// A uniform draw from [0, n), n > 0.
inline uint64_t draw_below(std::mt19937_64& rng, uint64_t n) {
  const uint64_t limit = std::mt19937_64::max() - std::mt19937_64::max() % n;
  uint64_t r;
  do r = rng(); while (r >= limit);
  return r % n;
}

/// Makes the first k elements of v the first k of a uniform random permutation
/// (a partial Fisher-Yates shuffle; k = v.size() shuffles all of v).
template <class T>
void sample_front(std::vector<T>& v, std::size_t k, std::mt19937_64& rng) {
  for (std::size_t i = 0; i < k && i + 1 < v.size(); ++i) std::swap(v[i], v[i + draw_below(rng, v.size() - i)]);
}

}  // namespace kiln::datasets::detail
