#pragma once
// Random tensors from one global, seedable generator (kiln::random::set_seed).
#include <cstdint>
#include <optional>
#include <string>

#include "kiln/core/tensor.h"

namespace kiln::random {

/// Seeds the global generator; the same seed gives the same sequence.
void set_seed(uint64_t seed);
/// A fresh 64-bit seed drawn from the global generator.
uint64_t next_seed();
/// The global generator's whole state as text, for checkpoints: after
/// set_state(get_state()) the generator draws what it would have drawn.
/// Everything unseeded draws from it: Dropout's masks, fit's shuffle order,
/// initializers.
std::string get_state();
/// Restores a state from get_state(); throws ValueError if `state` is not one.
void set_state(const std::string& state);
/// Normal values with `mean` and `stddev`; a seed makes the draw reproducible.
Tensor normal(const Shape& shape, double mean = 0.0, double stddev = 1.0, DType dtype = DType::float32,
              std::optional<uint64_t> seed = std::nullopt);
/// Floats uniform in [minval, maxval); integer dtypes draw in [minval, maxval).
Tensor uniform(const Shape& shape, double minval = 0.0, double maxval = 1.0, DType dtype = DType::float32,
               std::optional<uint64_t> seed = std::nullopt);
/// Normal values redrawn until within two standard deviations of the mean.
Tensor truncated_normal(const Shape& shape, double mean = 0.0, double stddev = 1.0,
                        DType dtype = DType::float32, std::optional<uint64_t> seed = std::nullopt);
/// A random permutation of 0..n-1 (int64).
Tensor permutation(int64_t n, std::optional<uint64_t> seed = std::nullopt);

}  // namespace kiln::random
