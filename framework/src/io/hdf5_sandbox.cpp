#include "io/hdf5_sandbox.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstring>
#include <fstream>

#include "io/atomic_file.h"
#include "io/hdf5_snapshot.h"
#include "kiln/core/error.h"
#include "kiln/core/limits.h"

namespace kiln::io {

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

int64_t cpu_limit(const H5SandboxLimits& limits, std::size_t bytes) {
  return limits.cpu_seconds + static_cast<int64_t>(bytes >> 25);
}

int64_t wall_limit(const H5SandboxLimits& limits, std::size_t bytes) {
  return std::max<int64_t>(limits.min_wall_seconds, 4 * cpu_limit(limits, bytes));
}

/// The child: confine, parse, answer 'K' + snapshot or 'E' + message, exit.
[[noreturn]] void run_child(int out, const std::vector<uint8_t>& bytes, const std::string& name,
                            const H5SandboxLimits& limits) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (dup2(out, 3) < 0) _exit(4);
  if (syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
    for (int fd = 4; fd < 65536; ++fd) close(fd);
  close(0);
  // SIGXCPU at the soft limit says why the child stopped; SIGKILL a second later if it ignores that.
  const auto cpu = static_cast<rlim_t>(cpu_limit(limits, bytes.size()));
  const rlimit cpu_rl{cpu, cpu + 1};
  setrlimit(RLIMIT_CPU, &cpu_rl);
  set_limit(RLIMIT_FSIZE, 0);
  set_limit(RLIMIT_NOFILE, 8);
  // AddressSanitizer reserves terabytes of address space for its shadow memory.
  if (!kAddressSanitizer)
    set_limit(RLIMIT_AS, static_cast<rlim_t>(vm_bytes_now() + 2 * static_cast<uint64_t>(max_read_bytes()) +
                                             4 * static_cast<uint64_t>(bytes.size()) + (uint64_t{512} << 20)));
  if (!install_seccomp()) {
    const std::string m = "E" + name + ": cannot start the HDF5 sandbox (seccomp is unavailable: " +
                          std::strerror(errno) + "); open only trusted files, with trusted = true";
    write_all(3, m.data(), m.size());
    _exit(0);
  }
  std::vector<uint8_t> answer;
  try {
    H5File f = H5File::from_image(bytes, name);
    const std::vector<uint8_t> snapshot = encode_snapshot(*take_snapshot(f.root()));
    answer.reserve(snapshot.size() + 1);
    answer.push_back('K');
    answer.insert(answer.end(), snapshot.begin(), snapshot.end());
  } catch (const std::exception& e) {
    const std::string m = std::string("E") + e.what();
    answer.assign(m.begin(), m.end());
  }
  write_all(3, answer.data(), answer.size());
  _exit(0);
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* why = sig == SIGXCPU ? " (it exceeded its CPU-time limit)"
                      : sig == SIGSYS ? " (it attempted a forbidden system call)"
                      : sig == SIGKILL ? " (it ran past its time limit or out of memory)"
                                       : "";
    return "was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")" + why;
  }
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

/// Reads the child's whole answer, or kills it when it is too slow or too long.
std::vector<uint8_t> read_answer(int fd, pid_t pid, const std::string& name, int64_t wall_seconds) {
  const uint64_t cap = static_cast<uint64_t>(max_read_bytes()) + (uint64_t{256} << 20);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wall_seconds);
  std::vector<uint8_t> out;
  std::vector<uint8_t> chunk(1 << 16);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    const int r = left.count() > 0 ? poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30))) : 0;
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      kill(pid, SIGKILL);
      throw IOError(name + ": the sandboxed HDF5 reader did not finish within " +
                    std::to_string(wall_seconds) + " s; it was stopped");
    }
    const ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out;
    if (out.size() + static_cast<std::size_t>(n) > cap) {
      kill(pid, SIGKILL);
      throw IOError(name + ": the sandboxed HDF5 reader returned more than " + std::to_string(cap) + " bytes");
    }
    out.insert(out.end(), chunk.begin(), chunk.begin() + n);
  }
}

int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

H5File untrusted_h5_from_image(const std::vector<uint8_t>& bytes, const std::string& name,
                               const H5SandboxLimits& limits) {
  if (bytes.empty()) throw IOError(name + ": the HDF5 data is empty (0 bytes)");
  if (!looks_like_hdf5(bytes)) throw IOError(name + ": not HDF5 data (bad signature)");
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw IOError(name + ": cannot start the HDF5 sandbox: " + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw IOError(name + ": cannot start the HDF5 sandbox: " + std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    run_child(fds[1], bytes, name, limits);
  }
  close(fds[1]);
  std::vector<uint8_t> answer;
  try {
    answer = read_answer(fds[0], pid, name, wall_limit(limits, bytes.size()));
  } catch (...) {
    close(fds[0]);
    wait_for(pid);
    throw;
  }
  close(fds[0]);
  const int status = wait_for(pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw IOError(name + ": cannot read the HDF5 file: the sandboxed reader " + describe_status(status) +
                  "; the file is corrupt or hostile");
  if (answer.empty()) throw IOError(name + ": the sandboxed HDF5 reader returned nothing");
  if (answer[0] == 'E') {
    // The message came from the child, so it is bounded and kept printable.
    std::string m(answer.begin() + 1, answer.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(answer.size(), 4097)));
    for (char& c : m)
      if (static_cast<unsigned char>(c) < 0x20 && c != '\n') c = '?';
    throw IOError(m);
  }
  if (answer[0] != 'K') throw IOError(name + ": the sandboxed HDF5 reader returned malformed data (bad tag)");
  return H5File::from_snapshot(decode_snapshot(answer.data() + 1, answer.size() - 1, name), name, bytes.size());
}

H5File open_untrusted_h5(const std::string& path, const H5SandboxLimits& limits) {
  const std::vector<uint8_t> bytes = read_file_bytes(path);
  if (bytes.empty()) throw IOError(path + ": the file is empty (0 bytes), not an HDF5 file");
  if (!looks_like_hdf5(bytes)) throw IOError(path + ": not an HDF5 file (bad signature)");
  return untrusted_h5_from_image(bytes, path, limits);
}

H5File open_h5(const std::string& path, bool trusted) {
  return trusted ? H5File::open(path) : open_untrusted_h5(path);
}

H5File h5_from_image(const std::vector<uint8_t>& bytes, const std::string& name, bool trusted) {
  return trusted ? H5File::from_image(bytes, name) : untrusted_h5_from_image(bytes, name);
}

}  // namespace kiln::io
