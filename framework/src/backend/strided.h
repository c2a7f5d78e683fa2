#pragma once
// Private: N-operand strided iteration shared by the backends. Dimensions that
// are contiguous for every operand are merged first, so the innermost loop is
// as long as possible and usually unit-stride (the CPU loops over the plan; the
// CUDA kernels receive it).
#include <array>
#include <cstdint>
#include <vector>

namespace kiln::strided {

template <std::size_t N>
struct StridedPlan {
  std::vector<int64_t> shape;
  std::array<std::vector<int64_t>, N> strides;
};

template <std::size_t N>
StridedPlan<N> make_plan(const std::vector<int64_t>& shape, const std::array<std::vector<int64_t>, N>& strides) {
  StridedPlan<N> p;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;  // size-1 dims never move the pointer
    bool merge = !p.shape.empty();
    if (merge)
      for (std::size_t k = 0; k < N; ++k)
        if (p.strides[k].back() != strides[k][d] * shape[d]) merge = false;
    if (merge) {
      p.shape.back() *= shape[d];
      for (std::size_t k = 0; k < N; ++k) p.strides[k].back() = strides[k][d];
    } else {
      p.shape.push_back(shape[d]);
      for (std::size_t k = 0; k < N; ++k) p.strides[k].push_back(strides[k][d]);
    }
  }
  if (p.shape.empty()) {
    p.shape.push_back(1);
    for (std::size_t k = 0; k < N; ++k) p.strides[k].push_back(0);
  }
  return p;
}

/// Calls inner(offsets, count, inner_strides) once per run of the last merged dimension.
template <std::size_t N, class F>
void strided_for(const std::vector<int64_t>& shape, const std::array<std::vector<int64_t>, N>& strides,
                 std::array<int64_t, N> offsets, F&& inner) {
  for (auto d : shape)
    if (d == 0) return;
  StridedPlan<N> p = make_plan<N>(shape, strides);
  const std::size_t r = p.shape.size();
  const int64_t n_inner = p.shape[r - 1];
  std::array<int64_t, N> inner_strides;
  for (std::size_t k = 0; k < N; ++k) inner_strides[k] = p.strides[k][r - 1];
  if (r == 1) {
    inner(offsets, n_inner, inner_strides);
    return;
  }
  std::vector<int64_t> idx(r - 1, 0);
  std::array<int64_t, N> off = offsets;
  while (true) {
    inner(off, n_inner, inner_strides);
    // odometer increment over the outer dims
    std::size_t d = r - 1;
    while (d > 0) {
      --d;
      ++idx[d];
      for (std::size_t k = 0; k < N; ++k) off[k] += p.strides[k][d];
      if (idx[d] < p.shape[d]) break;
      for (std::size_t k = 0; k < N; ++k) off[k] -= p.strides[k][d] * p.shape[d];
      idx[d] = 0;
      if (d == 0) return;
    }
  }
}

/// Strides of `s` broadcast to `out` (0 where s has size 1 or is missing).
inline std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& s, const std::vector<int64_t>& out) {
  std::vector<int64_t> st(out.size(), 0);
  int64_t acc = 1;
  for (int64_t i = static_cast<int64_t>(s.size()) - 1; i >= 0; --i) {
    std::size_t o = out.size() - s.size() + static_cast<std::size_t>(i);
    st[o] = s[i] == 1 ? 0 : acc;
    acc *= s[i];
  }
  return st;
}

}  // namespace kiln::strided
