#pragma once
// Private, std-only (host-tested): builds the kernels' iteration plans from
// shapes and strides. The merging rule is the shared one (backend/strided.h), so
// both backends see the same simplified loop nest.
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/strided.h"
#include "backend/cuda/kernel_types.h"

namespace kiln::cuda {

/// Merged N-operand plan for `shape`; throws std::length_error when more than
/// kMaxDims dimensions remain after merging (never for tensors of rank <= 8).
template <std::size_t N>
k::Plan make_plan(const std::vector<int64_t>& shape, const std::array<std::vector<int64_t>, N>& strides) {
  static_assert(N <= k::kMaxOperands);
  k::Plan out;
  out.n = 1;
  for (auto d : shape) out.n *= d;
  strided::StridedPlan<N> p = strided::make_plan<N>(shape, strides);
  if (p.shape.size() > static_cast<std::size_t>(k::kMaxDims))
    throw std::length_error("CUDA backend: " + std::to_string(p.shape.size()) +
                            " non-mergeable dimensions exceed the kernel limit of " + std::to_string(k::kMaxDims));
  out.rank = static_cast<int>(p.shape.size());
  for (int d = 0; d < out.rank; ++d) {
    out.shape[d] = p.shape[d];
    for (std::size_t op = 0; op < N; ++op) out.stride[op][d] = p.strides[op][d];
  }
  return out;
}

/// Plan for reducing a contiguous x of shape `xs` to `keep` (same rank, reduced
/// axes set to 1). Kept and reduced dims are each merged where contiguous.
inline k::ReducePlan make_reduce_plan(const std::vector<int64_t>& xs, const std::vector<int64_t>& keep) {
  k::ReducePlan rp;
  std::vector<int64_t> st(xs.size());
  int64_t acc = 1;
  for (int64_t i = static_cast<int64_t>(xs.size()) - 1; i >= 0; --i) {
    st[i] = acc;
    acc *= xs[i];
  }
  std::vector<int64_t> ks, kst, rs, rst;
  auto push = [](std::vector<int64_t>& s, std::vector<int64_t>& t, int64_t dim, int64_t stride) {
    if (dim == 1) return;
    if (!s.empty() && t.back() == stride * dim) {  // outer dim continues the inner one
      s.back() *= dim;
      t.back() = stride;
    } else {
      s.push_back(dim);
      t.push_back(stride);
    }
  };
  for (std::size_t d = 0; d < xs.size(); ++d) {
    if (keep[d] == 1 && xs[d] != 1) push(rs, rst, xs[d], st[d]);
    else push(ks, kst, xs[d], st[d]);
  }
  if (ks.size() > static_cast<std::size_t>(k::kMaxDims) || rs.size() > static_cast<std::size_t>(k::kMaxDims))
    throw std::length_error("CUDA backend: reduction has too many non-mergeable dimensions");
  rp.kept_rank = static_cast<int>(ks.size());
  rp.red_rank = static_cast<int>(rs.size());
  for (std::size_t i = 0; i < ks.size(); ++i) {
    rp.kept_shape[i] = ks[i];
    rp.kept_stride[i] = kst[i];
    rp.n_out *= ks[i];
  }
  for (std::size_t i = 0; i < rs.size(); ++i) {
    rp.red_shape[i] = rs[i];
    rp.red_stride[i] = rst[i];
    rp.n_red *= rs[i];
  }
  rp.rows = rp.red_rank == 1 && rp.red_stride[0] == 1;
  return rp;
}

}  // namespace kiln::cuda
