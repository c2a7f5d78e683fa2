#pragma once
// Private: the per-axis sizes of the convolution and pooling layers. Rank-1
// layers hold one int, rank-2 layers a Size2; these overloads let one
// implementation validate and print either kind, and lift a
// rank-1 size onto the unit-height 2D ops.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "layer_utils.h"

namespace kiln::layers::detail {

inline std::vector<int64_t> size_values(int64_t v) { return {v}; }
inline std::vector<int64_t> size_values(Size2 s) { return {s.first, s.second}; }

inline bool all_positive(const std::vector<int64_t>& v) {
  for (auto x : v)
    if (x <= 0) return false;
  return true;
}
inline bool any_above_one(const std::vector<int64_t>& v) {
  for (auto x : v)
    if (x > 1) return true;
  return false;
}

/// As the error messages print it: "3" for one axis, "(3, 5)" for two.
inline std::string size_text(int64_t v) { return std::to_string(v); }
inline std::string size_text(Size2 s) {
  return "(" + std::to_string(s.first) + ", " + std::to_string(s.second) + ")";
}

/// The (height, width) argument of the 2D ops; one axis runs on a unit height.
inline std::array<int, 2> size_2d(int64_t v) { return {1, static_cast<int>(v)}; }
inline std::array<int, 2> size_2d(Size2 s) { return s.array(); }

/// Permutations between channels_first and channels_last for a rank-`rank` input.
inline std::vector<int> to_channels_last(int rank) {
  std::vector<int> p{0};
  for (int i = 2; i < rank; ++i) p.push_back(i);
  p.push_back(1);
  return p;
}
inline std::vector<int> to_channels_first(int rank) {
  std::vector<int> p{0, rank - 1};
  for (int i = 1; i < rank - 1; ++i) p.push_back(i);
  return p;
}

}  // namespace kiln::layers::detail
