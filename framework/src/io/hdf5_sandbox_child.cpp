// The sandboxed child of the HDF5 sandbox (hdf5_sandbox_child.h).
#include "io/hdf5_sandbox_child.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <vector>

#include "io/hdf5_file.h"
#include "io/hdf5_sandbox_answer.h"
#include "io/hdf5_snapshot.h"
#include "kiln/core/limits.h"

namespace kiln::io::sandbox {

namespace {

#if defined(__x86_64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#else
#error "the HDF5 sandbox knows the seccomp architecture of x86-64 and AArch64 only"
#endif

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// What libhdf5, the C++ runtime and the allocator need to parse an image in
// memory and write the answer: nothing that names a path, a process or a socket.
constexpr long kAllowed[] = {
    SYS_read,  SYS_write,        SYS_writev,      SYS_close,         SYS_lseek,    SYS_fstat,
    SYS_newfstatat, SYS_brk,     SYS_mmap,        SYS_munmap,        SYS_mremap,   SYS_mprotect,
    SYS_madvise, SYS_futex,      SYS_rt_sigreturn, SYS_rt_sigprocmask, SYS_sigaltstack, SYS_getpid,
    SYS_gettid, SYS_clock_gettime, SYS_gettimeofday, SYS_getrandom,   SYS_sched_yield, SYS_exit,
    SYS_exit_group,
    // A new anonymous pipe reaches nothing outside the process; the
    // sanitizers' runtimes probe memory readability through one.
    SYS_pipe2,
#ifdef SYS_pipe
    SYS_pipe,
#endif
};

bool install_seccomp() {
  std::vector<sock_filter> f;
  f.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0));
  f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  f.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  for (long nr : kAllowed) {
    f.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(nr), 0, 1));
    f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  }
  // Anything else fails with EPERM: libhdf5 then reports an error (a filter
  // plugin it cannot load, an external file it cannot open) instead of dying.
  f.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
  sock_fprog prog{static_cast<unsigned short>(f.size()), f.data()};
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

void write_all(int fd, const void* data, std::size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(3);
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void write_error(const std::string& m) {
  const uint32_t tag = kErrorFrame, len = static_cast<uint32_t>(std::min<std::size_t>(m.size(), 4096));
  write_all(kAnswerFd, &tag, sizeof tag);
  write_all(kAnswerFd, &len, sizeof len);
  write_all(kAnswerFd, m.data(), len);
}

uint64_t vm_bytes_now() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  statm >> pages;
  return pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

void set_limit(int resource, rlim_t value) {
  rlimit r{value, value};
  setrlimit(resource, &r);
}

}  // namespace

void close_from(int first) {
  if (syscall(SYS_close_range, static_cast<unsigned>(first), ~0u, 0u) != 0)
    for (int fd = first; fd < 65536; ++fd) close(fd);
}

void serve(const uint8_t* data, std::size_t size, const std::string& name, int64_t cpu_seconds) {
  // SIGXCPU at the soft limit says why the child stopped; SIGKILL a second later if it ignores that.
  const auto cpu = static_cast<rlim_t>(cpu_seconds);
  const rlimit cpu_rl{cpu, cpu + 1};
  setrlimit(RLIMIT_CPU, &cpu_rl);
  set_limit(RLIMIT_FSIZE, 0);
  set_limit(RLIMIT_NOFILE, 8);
  // AddressSanitizer reserves terabytes of address space for its shadow memory.
  if (!kAddressSanitizer)
    set_limit(RLIMIT_AS, static_cast<rlim_t>(vm_bytes_now() + 2 * static_cast<uint64_t>(max_read_bytes()) +
                                             4 * static_cast<uint64_t>(size) + (uint64_t{512} << 20)));
  if (!install_seccomp()) {
    write_error(name + ": cannot start the HDF5 sandbox (seccomp is unavailable: " + std::strerror(errno) +
                "); open only trusted files, with trusted = true");
    _exit(0);
  }
  // The answer is a run of frames, each a u32 length and that many bytes of
  // the snapshot's encoding, streamed as the file is walked; then a 0 (done),
  // or kErrorFrame, a u32 length and a message.
  const SnapshotSink sink = [](const void* bytes, std::size_t n) {
    const auto* p = static_cast<const uint8_t*>(bytes);
    while (n > 0) {
      const auto len = static_cast<uint32_t>(std::min<std::size_t>(n, kMaxFrame));
      write_all(kAnswerFd, &len, sizeof len);
      write_all(kAnswerFd, p, len);
      p += len;
      n -= len;
    }
  };
  try {
    // The bytes are read in place, and values stored as they are read are
    // sent as offsets: the parent copies them from its own bytes of the file.
    H5File f = H5File::from_memory(data, size, name, /*borrow=*/true);
    write_snapshot(f.root(), sink, {}, /*by_reference=*/true);
    const uint32_t done = 0;
    write_all(kAnswerFd, &done, sizeof done);
  } catch (const std::exception& e) {
    write_error(e.what());
  }
  _exit(0);
}

}  // namespace kiln::io::sandbox
