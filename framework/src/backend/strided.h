#pragma once
// Private: N-operand strided iteration shared by the backends. Dimensions that
// are contiguous for every operand are merged first, so the innermost loop is
// as long as possible and usually unit-stride (the CPU loops over the plan; the
// CUDA kernels receive it).
#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace kiln::strided {

/// Sizes or strides of a loop nest: held inline up to rank 8 (every real
/// tensor), so the CPU kernels plan their loops without allocating.
class Dims {
 public:
  static constexpr std::size_t kInline = 8;
  Dims() = default;
  Dims(std::size_t n, int64_t value) {
    for (std::size_t i = 0; i < n; ++i) push_back(value);
  }
  Dims(const std::vector<int64_t>& v) {  // NOLINT: shapes and strides arrive as vectors
    for (int64_t x : v) push_back(x);
  }
  Dims(std::initializer_list<int64_t> v) {
    for (int64_t x : v) push_back(x);
  }
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  int64_t* data() { return heap_.empty() ? inline_.data() : heap_.data(); }
  const int64_t* data() const { return heap_.empty() ? inline_.data() : heap_.data(); }
  int64_t& operator[](std::size_t i) { return data()[i]; }
  int64_t operator[](std::size_t i) const { return data()[i]; }
  int64_t& back() { return data()[n_ - 1]; }
  int64_t back() const { return data()[n_ - 1]; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + n_; }
  void push_back(int64_t x) {
    if (heap_.empty() && n_ < kInline) {
      inline_[n_++] = x;
      return;
    }
    if (heap_.empty()) heap_.assign(inline_.begin(), inline_.begin() + static_cast<std::ptrdiff_t>(n_));
    heap_.push_back(x);
    ++n_;
  }
  friend bool operator==(const Dims& a, const Dims& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

 private:
  std::array<int64_t, kInline> inline_{};
  std::vector<int64_t> heap_;  // used past kInline
  std::size_t n_ = 0;
};

template <std::size_t N>
struct StridedPlan {
  Dims shape;
  std::array<Dims, N> strides;
};

template <std::size_t N, class Strides = Dims, class Shape>
StridedPlan<N> make_plan(const Shape& shape, const std::array<Strides, N>& strides) {
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
template <std::size_t N, class Strides = Dims, class Shape, class F>
void strided_for(const Shape& shape, const std::array<Strides, N>& strides, std::array<int64_t, N> offsets, F&& inner) {
  for (auto d : shape)
    if (d == 0) return;
  StridedPlan<N> p = make_plan<N, Strides>(shape, strides);
  const std::size_t r = p.shape.size();
  const int64_t n_inner = p.shape[r - 1];
  std::array<int64_t, N> inner_strides;
  for (std::size_t k = 0; k < N; ++k) inner_strides[k] = p.strides[k][r - 1];
  if (r == 1) {
    inner(offsets, n_inner, inner_strides);
    return;
  }
  Dims idx(r - 1, 0);
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
template <class V = std::vector<int64_t>>
V broadcast_strides(const std::vector<int64_t>& s, const std::vector<int64_t>& out) {
  V st(out.size(), 0);
  int64_t acc = 1;
  for (int64_t i = static_cast<int64_t>(s.size()) - 1; i >= 0; --i) {
    std::size_t o = out.size() - s.size() + static_cast<std::size_t>(i);
    st[o] = s[i] == 1 ? 0 : acc;
    acc *= s[i];
  }
  return st;
}

/// Row-major strides of a contiguous tensor of shape `s`.
inline Dims contiguous_dims(const std::vector<int64_t>& s) {
  Dims st(s.size(), 1);
  for (std::size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

}  // namespace kiln::strided
