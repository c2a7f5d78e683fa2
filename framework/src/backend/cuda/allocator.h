#pragma once
// Private (CUDA builds only): the caching device allocator and the pinned host
// staging ring used for host-to-device copies.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "backend/cuda/size_classes.h"

namespace kiln::cuda {

struct AllocatorStats {
  std::size_t in_use = 0;   // bytes handed out (by size class)
  std::size_t cached = 0;   // bytes held in free lists
  std::size_t peak = 0;     // high-water mark of in_use
  int64_t device_mallocs = 0;
};

/// Per-device caching allocator. All kernels run on one stream per device, so
/// a block freed by the host can be handed out again at once: any later use is
/// queued behind every earlier use on the same stream. When cudaMalloc fails
/// the cache is released and the allocation retried once.
class DeviceAllocator {
 public:
  explicit DeviceAllocator(int device) : device_(device) {}
  /// A block of size_class(nbytes) bytes; throws kiln::RuntimeError when out of memory.
  void* allocate(std::size_t nbytes);
  void release(void* p, std::size_t nbytes);
  /// Returns every cached block to the driver.
  void empty_cache();
  AllocatorStats stats();

  /// Blocks handed out between begin_capture() and end_capture() belong to
  /// the captured work, which reuses them at every launch: once released they
  /// stay out of the cache until drop_capture(owner) (the work is destroyed).
  void begin_capture();
  /// The owner id of the blocks handed out since begin_capture().
  uint64_t end_capture();
  void drop_capture(uint64_t owner);

 private:
  void free_cached_locked();
  int device_;
  std::mutex mu_;
  std::unordered_map<std::size_t, std::vector<void*>> free_;
  AllocatorStats stats_;
  struct Owned {
    std::size_t size;
    uint64_t owner;
    bool released;
  };
  std::unordered_map<void*, Owned> owned_;
  uint64_t capturing_ = 0;  // the owner id while a capture records, else 0
  uint64_t next_owner_ = 0;
};

/// The allocator of device `index` (created on first use, never destroyed:
/// tensors may be freed during static destruction).
DeviceAllocator& device_allocator(int index);

/// Host-to-device copies go through a ring of pinned (page-locked) chunks: the
/// host memcpy's into a free chunk and queues an asynchronous DMA from it, so
/// the call returns while the GPU is still busy with earlier work and the
/// source buffer may be freed at once. A chunk is reused once the event
/// recorded after its copy has completed.
class PinnedStaging {
 public:
  static constexpr std::size_t kChunkBytes = std::size_t(4) << 20;
  static constexpr std::size_t kMaxChunks = 16;
  void upload(const void* host, void* device_dst, std::size_t nbytes, cudaStream_t stream);

 private:
  struct Chunk {
    void* host = nullptr;
    cudaEvent_t done = nullptr;
    bool used = false;
  };
  Chunk& acquire();
  std::mutex mu_;
  std::vector<Chunk> chunks_;
  std::size_t next_ = 0;
};

}  // namespace kiln::cuda
