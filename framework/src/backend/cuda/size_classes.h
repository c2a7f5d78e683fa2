#pragma once
// Private, std-only (host-tested): the size classes of the CUDA caching
// allocator. A freed block goes back to the free list of its class and serves
// any later request of the same class, so a training loop that allocates the
// same shapes every step stops calling cudaMalloc (which synchronises the
// device) after the first step.
//
//   small requests (<= 1 MiB): rounded up to a multiple of 512 bytes
//   large requests:            rounded up to one of 4 steps per power of two
//                              (2^k · {1, 1.25, 1.5, 1.75}), so at most 25 % waste
//
// 512 bytes keeps every block aligned for any element type and for cuBLAS/cuDNN
// vector loads; the classes are deterministic, so the deleter recomputes the
// class from the requested size instead of storing it.
#include <cstddef>
#include <cstdint>

namespace kiln::cuda {

inline constexpr std::size_t kSmallAlign = 512;
inline constexpr std::size_t kSmallLimit = std::size_t(1) << 20;

/// Bytes actually reserved for a request of `nbytes` (0 gets the smallest class).
constexpr std::size_t size_class(std::size_t nbytes) {
  if (nbytes == 0) return kSmallAlign;
  if (nbytes <= kSmallLimit) return (nbytes + kSmallAlign - 1) / kSmallAlign * kSmallAlign;
  // Largest power of two <= nbytes, then the smallest quarter step >= nbytes.
  std::size_t p = kSmallLimit;
  while (p <= nbytes / 2) p *= 2;
  const std::size_t step = p / 4;
  return (nbytes + step - 1) / step * step;
}

}  // namespace kiln::cuda
