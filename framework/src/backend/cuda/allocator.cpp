// CUDA device memory: size-class caching allocator and pinned staging ring.
#include "backend/cuda/allocator.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "backend/cuda/cuda_util.h"

namespace kiln::cuda {

void* DeviceAllocator::allocate(std::size_t nbytes) {
  const std::size_t sz = size_class(nbytes);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = free_.find(sz);
  if (it != free_.end() && !it->second.empty()) {
    void* p = it->second.back();
    it->second.pop_back();
    stats_.cached -= sz;
    stats_.in_use += sz;
    if (stats_.in_use > stats_.peak) stats_.peak = stats_.in_use;
    if (capturing_) owned_[p] = {sz, capturing_, false};
    return p;
  }
  DeviceGuard guard(device_);
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, sz);
  // Freeing the cache synchronizes the device, which a capture cannot do.
  if (e == cudaErrorMemoryAllocation && stats_.cached > 0 && !capturing_) {
    (void)cudaGetLastError();  // clear the error before retrying
    free_cached_locked();
    e = cudaMalloc(&p, sz);
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    std::size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    throw RuntimeError("CUDA out of memory on cuda:" + std::to_string(device_) + ": tried to allocate " +
                       std::to_string(sz) + " bytes (" + cudaGetErrorString(e) + "); Kiln holds " +
                       std::to_string(stats_.in_use) + " bytes in tensors, the device has " + std::to_string(free_b) +
                       " of " + std::to_string(total_b) + " bytes free");
  }
  ++stats_.device_mallocs;
  stats_.in_use += sz;
  if (stats_.in_use > stats_.peak) stats_.peak = stats_.in_use;
  if (capturing_) owned_[p] = {sz, capturing_, false};
  return p;
}

void DeviceAllocator::release(void* p, std::size_t nbytes) {
  if (!p) return;
  const std::size_t sz = size_class(nbytes);
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = owned_.find(p); it != owned_.end()) {
    it->second.released = true;  // captured work still uses it
    return;
  }
  free_[sz].push_back(p);
  stats_.in_use -= sz;
  stats_.cached += sz;
}

void DeviceAllocator::begin_capture() {
  std::lock_guard<std::mutex> lock(mu_);
  capturing_ = ++next_owner_;
}

uint64_t DeviceAllocator::end_capture() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(capturing_, 0);
}

void DeviceAllocator::drop_capture(uint64_t owner) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = owned_.begin(); it != owned_.end();) {
    if (it->second.owner != owner) {
      ++it;
      continue;
    }
    if (it->second.released) {
      free_[it->second.size].push_back(it->first);
      stats_.in_use -= it->second.size;
      stats_.cached += it->second.size;
    }
    it = owned_.erase(it);
  }
}

void DeviceAllocator::free_cached_locked() {
  DeviceGuard guard(device_);
  cudaDeviceSynchronize();  // queued kernels may still use cached blocks' old contents
  for (auto& [sz, blocks] : free_) {
    for (void* p : blocks) cudaFree(p);
    stats_.cached -= sz * blocks.size();
    blocks.clear();
  }
  free_.clear();
}

void DeviceAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mu_);
  free_cached_locked();
}

AllocatorStats DeviceAllocator::stats() {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

DeviceAllocator& device_allocator(int index) {
  static std::mutex mu;
  static std::array<DeviceAllocator*, 64> allocators{};  // leaked on purpose
  if (index < 0 || index >= static_cast<int>(allocators.size()))
    throw ValueError("CUDA device index " + std::to_string(index) + " is out of range");
  std::lock_guard<std::mutex> lock(mu);
  if (!allocators[index]) allocators[index] = new DeviceAllocator(index);
  return *allocators[index];
}

PinnedStaging::Chunk& PinnedStaging::acquire() {
  for (auto& c : chunks_)
    if (!c.used || cudaEventQuery(c.done) == cudaSuccess) return c;
  (void)cudaGetLastError();  // cudaEventQuery's cudaErrorNotReady is not an error
  if (chunks_.size() < kMaxChunks) {
    Chunk c;
    KILN_CUDA_CHECK(cudaHostAlloc(&c.host, kChunkBytes, cudaHostAllocDefault));
    KILN_CUDA_CHECK(cudaEventCreateWithFlags(&c.done, cudaEventDisableTiming));
    chunks_.push_back(c);
    return chunks_.back();
  }
  Chunk& c = chunks_[next_++ % chunks_.size()];
  KILN_CUDA_CHECK(cudaEventSynchronize(c.done));
  return c;
}

void PinnedStaging::upload(const void* host, void* device_dst, std::size_t nbytes, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  const char* src = static_cast<const char*>(host);
  char* dst = static_cast<char*>(device_dst);
  for (std::size_t off = 0; off < nbytes; off += kChunkBytes) {
    const std::size_t n = std::min(kChunkBytes, nbytes - off);
    Chunk& c = acquire();
    std::memcpy(c.host, src + off, n);
    KILN_CUDA_CHECK(cudaMemcpyAsync(dst + off, c.host, n, cudaMemcpyHostToDevice, stream));
    KILN_CUDA_CHECK(cudaEventRecord(c.done, stream));
    c.used = true;
  }
}

}  // namespace kiln::cuda
