// Dataset::shuffle: tf.data's buffered shuffle with seed-determined orders.
#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <utility>

#include "kiln/data/dataset.h"
#include "kiln/core/error.h"
#include "kiln/ops/random.h"

namespace kiln {

namespace {
// SplitMix64 finaliser: turns (seed, pass) into well-spread generator seeds,
// so pass k's order does not resemble pass k+1's.
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
}  // namespace

Dataset Dataset::shuffle(int64_t buffer_size, std::optional<uint64_t> seed, bool reshuffle_each_iteration) const {
  if (buffer_size < 1)
    throw ValueError("Dataset.shuffle: buffer_size must be greater than zero, but received buffer_size=" +
                     std::to_string(buffer_size));
  // Drawn once here (not per pass) so a dataset built after set_seed(s) is reproducible.
  const uint64_t base = seed ? *seed : random::next_seed();
  // Shared by copies of the result, like tf.data's per-dataset epoch counter.
  auto epoch = std::make_shared<std::atomic<uint64_t>>(0);
  auto up = factory_;
  auto factory = [up, buffer_size, base, epoch, reshuffle_each_iteration]() -> Pull {
    const uint64_t pass = reshuffle_each_iteration ? epoch->fetch_add(1) : 0;
    auto gen = std::make_shared<std::mt19937_64>(mix(base ^ mix(pass)));
    return [pull = up(), gen, buffer_size, buffer = std::vector<Element>(),
            upstream_done = false]() mutable -> std::optional<Element> {
      while (!upstream_done && static_cast<int64_t>(buffer.size()) < buffer_size) {
        std::optional<Element> e = pull();
        if (!e) {
          upstream_done = true;
          pull = nullptr;
          break;
        }
        buffer.push_back(std::move(*e));
      }
      if (buffer.empty()) return std::nullopt;
      // gen() % n rather than uniform_int_distribution: the latter is
      // implementation-defined, and orders should match across standard libraries.
      // The bias (n / 2^64) is negligible.
      const std::size_t i = static_cast<std::size_t>((*gen)() % buffer.size());
      Element out = std::move(buffer[i]);
      if (i + 1 != buffer.size()) buffer[i] = std::move(buffer.back());
      buffer.pop_back();
      return out;
    };
  };
  return Dataset(std::move(factory), cardinality_);
}

}  // namespace kiln
