#include "io/hdf5_sandbox.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "backend/cpu/parallel.h"
#include "io/atomic_file.h"
#include "io/hdf5_sandbox_answer.h"
#include "io/hdf5_snapshot.h"
#include "kiln/core/error.h"
#include "kiln/core/limits.h"

namespace kiln::io {

namespace {

using sandbox::Answer;
using sandbox::AnswerReader;
using sandbox::kErrorFrame;
using sandbox::kMaxFrame;

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

/// The child: confine, parse, stream the snapshot (or an error) out in frames, exit.
[[noreturn]] void run_child(int out, const uint8_t* data, std::size_t size, const std::string& name,
                            const H5SandboxLimits& limits) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (dup2(out, 3) < 0) _exit(4);
  if (syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
    for (int fd = 4; fd < 65536; ++fd) close(fd);
  close(0);
  // SIGXCPU at the soft limit says why the child stopped; SIGKILL a second later if it ignores that.
  const auto cpu = static_cast<rlim_t>(cpu_limit(limits, size));
  const rlimit cpu_rl{cpu, cpu + 1};
  setrlimit(RLIMIT_CPU, &cpu_rl);
  set_limit(RLIMIT_FSIZE, 0);
  set_limit(RLIMIT_NOFILE, 8);
  // AddressSanitizer reserves terabytes of address space for its shadow memory.
  if (!kAddressSanitizer)
    set_limit(RLIMIT_AS, static_cast<rlim_t>(vm_bytes_now() + 2 * static_cast<uint64_t>(max_read_bytes()) +
                                             4 * static_cast<uint64_t>(size) + (uint64_t{512} << 20)));
  if (!install_seccomp()) {
    const std::string m = name + ": cannot start the HDF5 sandbox (seccomp is unavailable: " +
                          std::strerror(errno) + "); open only trusted files, with trusted = true";
    const uint32_t tag = kErrorFrame, len = static_cast<uint32_t>(m.size());
    write_all(3, &tag, sizeof tag);
    write_all(3, &len, sizeof len);
    write_all(3, m.data(), len);
    _exit(0);
  }
  // The answer is a run of frames, each a u32 length and that many bytes of
  // the snapshot's encoding, streamed as the file is walked; then a 0 (done),
  // or kErrorFrame, a u32 length and a message.
  const SnapshotSink sink = [](const void* data, std::size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    while (n > 0) {
      const auto len = static_cast<uint32_t>(std::min<std::size_t>(n, kMaxFrame));
      write_all(3, &len, sizeof len);
      write_all(3, p, len);
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
    write_all(3, &done, sizeof done);
  } catch (const std::exception& e) {
    const std::string m = e.what();
    const uint32_t tag = kErrorFrame, len = static_cast<uint32_t>(std::min<std::size_t>(m.size(), 4096));
    write_all(3, &tag, sizeof tag);
    write_all(3, &len, sizeof len);
    write_all(3, m.data(), len);
  }
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

int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

/// Parses `size` bytes at `data` in the sandboxed child and decodes its
/// answer, fetching values sent by reference through `fetch`.
H5File run_sandbox(const uint8_t* data, std::size_t size, const std::string& name, const H5SandboxLimits& limits,
                   const RawFetch& fetch) {
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
    run_child(fds[1], data, size, name, limits);
  }
  close(fds[1]);
  Answer answer;
  try {
    AnswerReader(fds[0], pid, name, wall_limit(limits, size)).read(answer, 64 << 10);
  } catch (...) {
    close(fds[0]);
    wait_for(pid);
    throw;
  }
  close(fds[0]);
  // A complete answer is decoded while the child exits (tearing down its
  // memory takes a few ms): the decoder reads only this process's memory.
  std::shared_ptr<const H5SnapshotNode> root;
  if (answer.done && answer.error.empty()) {
    try {
      root = decode_snapshot(answer.snapshot.data(), answer.snapshot.size(), name, {}, &fetch);
    } catch (...) {
      wait_for(pid);
      throw;
    }
  }
  const int status = wait_for(pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw IOError(name + ": cannot read the HDF5 file: the sandboxed reader " + describe_status(status) +
                  "; the file is corrupt or hostile");
  if (!answer.error.empty()) {
    // The message came from the child, so it is bounded and kept printable.
    std::string m = answer.error;
    for (char& c : m)
      if (static_cast<unsigned char>(c) < 0x20 && c != '\n') c = '?';
    throw IOError(m);
  }
  if (!answer.done) throw IOError(name + ": the sandboxed HDF5 reader returned malformed data (it stopped part way)");
  return H5File::from_snapshot(std::move(root), name, size);
}

/// Copies the values the child sent by reference: every range is checked
/// against the file first, then they are copied in pieces over Kiln's threads
/// (`copy` returns false when the file can no longer give the bytes).
void fetch_all(const std::vector<RawRead>& reads, const std::string& name, uint64_t size,
               cpu::FnRef<bool(uint64_t offset, uint8_t* dst, std::size_t n)> copy) {
  constexpr std::size_t kPiece = std::size_t{4} << 20;
  std::vector<RawRead> pieces;
  for (const auto& r : reads) {
    if (r.offset > size || r.size > size - r.offset)
      throw IOError(name + ": the sandboxed HDF5 reader returned malformed data (values at bytes " +
                    std::to_string(r.offset) + "+" + std::to_string(r.size) + " of a " + std::to_string(size) +
                    "-byte file)");
    for (std::size_t at = 0; at < r.size; at += kPiece)
      pieces.push_back({r.offset + at, static_cast<uint8_t*>(r.dst) + at, std::min(kPiece, r.size - at)});
  }
  std::atomic<bool> ok{true};
  cpu::parallel_for(static_cast<int64_t>(pieces.size()), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      if (!copy(pieces[i].offset, static_cast<uint8_t*>(pieces[i].dst), pieces[i].size)) ok = false;
  });
  if (!ok) throw IOError(name + ": the file changed or was truncated while it was read");
}

/// A file opened for the sandbox: mapped for the child (the parent never
/// touches the mapping, so a file truncated meanwhile can only kill the
/// child), and read with pread by the parent.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd_ < 0 || fstat(fd_, &st) != 0) {
      const int err = errno;
      throw IOError(path + (err == ENOENT ? ": no such file" : ": cannot open: " + std::string(std::strerror(err))));
    }
    if (S_ISDIR(st.st_mode)) throw IOError(path + ": is a directory, expected a file");
    size_ = static_cast<uint64_t>(st.st_size);
    if (size_ == 0) throw IOError(path + ": the file is empty (0 bytes), not an HDF5 file");
    std::vector<uint8_t> head(std::min<uint64_t>(size_, 8));
    if (::pread(fd_, head.data(), head.size(), 0) != static_cast<ssize_t>(head.size()) || !looks_like_hdf5(head))
      throw IOError(path + ": not an HDF5 file (bad signature)");
    check_declared_size(size_, size_, path);
    map_ = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (map_ == MAP_FAILED) throw IOError(path + ": cannot map the file: " + std::strerror(errno));
  }
  ~MappedFile() {
    if (map_ != MAP_FAILED) munmap(map_, size_);
    if (fd_ >= 0) ::close(fd_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const uint8_t* data() const { return static_cast<const uint8_t*>(map_); }
  std::size_t size() const { return static_cast<std::size_t>(size_); }
  /// Reads `n` bytes at `offset` with pread; false when the file has fewer.
  bool read_at(uint64_t offset, uint8_t* p, std::size_t n) const {
    while (n > 0) {
      const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      p += got;
      n -= static_cast<std::size_t>(got);
      offset += static_cast<uint64_t>(got);
    }
    return true;
  }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  void* map_ = MAP_FAILED;
};

}  // namespace

H5File untrusted_h5_from_image(const std::vector<uint8_t>& bytes, const std::string& name,
                               const H5SandboxLimits& limits) {
  if (bytes.empty()) throw IOError(name + ": the HDF5 data is empty (0 bytes)");
  if (!looks_like_hdf5(bytes)) throw IOError(name + ": not HDF5 data (bad signature)");
  const RawFetch fetch = [&](const std::vector<RawRead>& reads) {
    fetch_all(reads, name, bytes.size(), [&](uint64_t offset, uint8_t* dst, std::size_t n) {
      std::memcpy(dst, bytes.data() + offset, n);
      return true;
    });
  };
  return run_sandbox(bytes.data(), bytes.size(), name, limits, fetch);
}

H5File open_untrusted_h5(const std::string& path, const H5SandboxLimits& limits) {
  const MappedFile file(path);
  const RawFetch fetch = [&](const std::vector<RawRead>& reads) {
    fetch_all(reads, path, file.size(),
              [&](uint64_t offset, uint8_t* dst, std::size_t n) { return file.read_at(offset, dst, n); });
  };
  return run_sandbox(file.data(), file.size(), path, limits, fetch);
}

bool files_trusted_by_environment() {
  const char* v = std::getenv("KILN_TRUST_FILES");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

H5File open_h5(const std::string& path, bool trusted) {
  return trusted || files_trusted_by_environment() ? H5File::open(path) : open_untrusted_h5(path);
}

H5File h5_from_image(const std::vector<uint8_t>& bytes, const std::string& name, bool trusted) {
  return trusted || files_trusted_by_environment() ? H5File::from_image(bytes, name)
                                                    : untrusted_h5_from_image(bytes, name);
}

}  // namespace kiln::io
