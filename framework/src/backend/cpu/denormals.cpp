#include "backend/cpu/denormals.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace kiln::cpu {

namespace {
bool wanted() {
  static const bool on = [] {
    const char* e = std::getenv("KILN_FLUSH_DENORMALS");
    return !(e && std::strcmp(e, "0") == 0);
  }();
  return on;
}

#if defined(__x86_64__) || defined(__i386__)
constexpr uint64_t kFlushBits = 0x8040;  // MXCSR: flush-to-zero (bit 15) and denormals-are-zero (bit 6)
uint64_t read_mode() { return _mm_getcsr(); }
void write_mode(uint64_t m) { _mm_setcsr(static_cast<unsigned>(m)); }
#elif defined(__aarch64__)
constexpr uint64_t kFlushBits = uint64_t{1} << 24;  // FPCR.FZ
uint64_t read_mode() {
  uint64_t m;
  __asm__ volatile("mrs %0, fpcr" : "=r"(m));
  return m;
}
void write_mode(uint64_t m) { __asm__ volatile("msr fpcr, %0" : : "r"(m)); }
#else
constexpr uint64_t kFlushBits = 0;
uint64_t read_mode() { return 0; }
void write_mode(uint64_t) {}
#endif
}  // namespace

FlushDenormals::FlushDenormals() {
  if (kFlushBits == 0 || !wanted()) return;
  saved_ = read_mode();
  if ((saved_ & kFlushBits) == kFlushBits) return;
  write_mode(saved_ | kFlushBits);
  changed_ = true;
}

FlushDenormals::~FlushDenormals() {
  if (changed_) write_mode(saved_);
}

void flush_denormals_on_this_thread() {
  if (kFlushBits != 0 && wanted()) write_mode(read_mode() | kFlushBits);
}

}  // namespace kiln::cpu
