// CPU memory: 64-byte aligned blocks kept in a size-keyed cache, so a training
// loop that allocates the same shapes every step reuses blocks instead of
// calling malloc (and touching fresh pages) each time.
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "backend/cpu/cpu_backend.h"

namespace kiln::cpu {
namespace {

struct Pool {
  std::mutex mu;
  std::unordered_map<std::size_t, std::vector<void*>> free_blocks;
  std::size_t cached_bytes = 0;
  static constexpr std::size_t kMaxCached = std::size_t(1) << 30;
};
Pool& pool() {
  static Pool* p = new Pool();  // leaked on purpose: storage may outlive static destruction
  return *p;
}

std::size_t round_up(std::size_t n) { return (n + 63) / 64 * 64; }

void release(void* data, std::size_t nbytes, Device) {
  Pool& p = pool();
  std::size_t sz = round_up(nbytes == 0 ? 1 : nbytes);
  {
    std::lock_guard<std::mutex> lock(p.mu);
    if (p.cached_bytes + sz <= Pool::kMaxCached) {
      p.free_blocks[sz].push_back(data);
      p.cached_bytes += sz;
      return;
    }
  }
  std::free(data);
}

}  // namespace

std::shared_ptr<Storage> CpuBackend::allocate(std::size_t nbytes) {
  auto s = std::make_shared<Storage>();
  s->nbytes = nbytes;
  s->device = Device::cpu();
  std::size_t sz = round_up(nbytes == 0 ? 1 : nbytes);
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mu);
    auto it = p.free_blocks.find(sz);
    if (it != p.free_blocks.end() && !it->second.empty()) {
      s->data = it->second.back();
      it->second.pop_back();
      p.cached_bytes -= sz;
    }
  }
  if (!s->data) {
    s->data = std::aligned_alloc(64, sz);
    if (!s->data) throw std::bad_alloc();
  }
  s->deleter = &release;
  return s;
}

}  // namespace kiln::cpu
