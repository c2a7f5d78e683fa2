#include "io/hdf5_sandbox.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "backend/cpu/parallel.h"
#include "core/plugin_loader.h"
#include "io/atomic_file.h"
#include "io/hdf5_sandbox_answer.h"
#include "io/hdf5_sandbox_child.h"
#include "io/hdf5_snapshot.h"
#include "kiln/core/error.h"
#include "kiln/core/limits.h"

extern char** environ;

namespace kiln::io {

namespace {

using sandbox::Answer;
using sandbox::AnswerReader;

int64_t cpu_limit(const H5SandboxLimits& limits, std::size_t bytes) {
  return limits.cpu_seconds + static_cast<int64_t>(bytes >> 25);
}

int64_t wall_limit(const H5SandboxLimits& limits, std::size_t bytes) {
  return std::max<int64_t>(limits.min_wall_seconds, 4 * cpu_limit(limits, bytes));
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



/// Where the child reads the file from: the bytes in this process's memory
/// (for a forked child), and a descriptor of them (for the reader program).
struct ChildInput {
  std::size_t size;
  std::function<const uint8_t*()> bytes;  // each made on demand, and kept by the caller
  std::function<int()> descriptor;        // until the child has started
};

/// Starts the reader program with its answer pipe and the file's descriptor.
/// A fresh program, unlike a fork, does not share (copy-on-write) the loading
/// process's memory, which made every page the loader then wrote take a fault,
/// and it holds none of the locks the loading process's threads held.
pid_t spawn_reader(const std::string& program, int answer_w, int file_fd, const std::string& name, int64_t cpu) {
  // Both sources above the target numbers, so that neither dup2 overwrites the other.
  const int a = fcntl(answer_w, F_DUPFD_CLOEXEC, 10), f = fcntl(file_fd, F_DUPFD_CLOEXEC, 10);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, a, sandbox::kAnswerFd);
  posix_spawn_file_actions_adddup2(&actions, f, sandbox::kFileFd);
  const std::string cpu_text = std::to_string(cpu), parent = std::to_string(getpid());
  char* const argv[] = {const_cast<char*>(program.c_str()), const_cast<char*>(name.c_str()),
                        const_cast<char*>(cpu_text.c_str()), const_cast<char*>(parent.c_str()), nullptr};
  pid_t pid = -1;
  const int err = a < 0 || f < 0 ? errno : posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (a >= 0) close(a);
  if (f >= 0) close(f);
  if (err != 0)
    throw IOError(name + ": cannot start the HDF5 sandbox (" + program + "): " + std::strerror(err));
  return pid;
}

/// Starts the sandboxed child writing to `answer_w`: the reader program where
/// it is installed, else a fork of this process.
pid_t start_child(const ChildInput& in, int answer_w, const std::string& name, const H5SandboxLimits& limits) {
  const int64_t cpu = cpu_limit(limits, in.size);
  if (const std::string program = h5_reader_program(); !program.empty())
    return spawn_reader(program, answer_w, in.descriptor(), name, cpu);
  const uint8_t* data = in.bytes();
  const pid_t pid = fork();
  if (pid < 0) throw IOError(name + ": cannot start the HDF5 sandbox: " + std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (dup2(answer_w, sandbox::kAnswerFd) < 0) _exit(4);
    sandbox::close_from(sandbox::kAnswerFd + 1);
    close(0);
    sandbox::serve(data, in.size, name, cpu);
  }
  return pid;
}

/// The child's answer as the snapshot decoder reads it, frame by frame.
class PipeSource final : public SnapshotSource {
 public:
  PipeSource(AnswerReader& reader, Answer& answer) : reader_(reader), answer_(answer) {}
  const uint8_t* data() const override { return answer_.snapshot.data(); }
  std::size_t size() const override { return answer_.snapshot.size(); }
  bool pull() override { return reader_.next(answer_); }
  uint64_t limit() const override { return sandbox::max_answer_bytes(); }

 private:
  AnswerReader& reader_;
  Answer& answer_;
};

/// Parses the file in the sandboxed child and decodes its answer as it
/// arrives, fetching values sent by reference through `fetch`.
H5File run_sandbox(const ChildInput& in, const std::string& name, const H5SandboxLimits& limits,
                   const RawFetch& fetch) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw IOError(name + ": cannot start the HDF5 sandbox: " + std::strerror(errno));
  pid_t pid = -1;
  try {
    pid = start_child(in, fds[1], name, limits);
  } catch (...) {
    close(fds[0]);
    close(fds[1]);
    throw;
  }
  close(fds[1]);
  Answer answer;
  answer.snapshot.reserve(64 << 10);
  AnswerReader reader(fds[0], pid, name, wall_limit(limits, in.size));
  PipeSource source(reader, answer);
  std::shared_ptr<const H5SnapshotNode> root;
  std::exception_ptr malformed;
  try {
    root = decode_snapshot(source, name, {}, &fetch);
  } catch (...) {
    // A child still writing sent malformed data, or the fetch or the reader's
    // limits failed: it is stopped. One that stopped part way (crashed, was
    // killed, or reported an error) is explained below instead.
    if (!answer.ended) {
      kill(pid, SIGKILL);
      close(fds[0]);
      wait_for(pid);
      throw;
    }
    malformed = std::current_exception();
  }
  close(fds[0]);
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
  if (malformed) std::rethrow_exception(malformed);
  if (!answer.done) throw IOError(name + ": the sandboxed HDF5 reader returned malformed data (it stopped part way)");
  return H5File::from_snapshot(std::move(root), name, in.size);
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

/// A file opened for the sandbox, read with pread by this process. A forked
/// child reads a mapping of it (which this process never touches, so a file
/// truncated meanwhile can only kill the child); the reader program maps the
/// descriptor itself.
class SandboxFile {
 public:
  explicit SandboxFile(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd_ < 0 || fstat(fd_, &st) != 0) {
      const int err = errno;
      if (fd_ >= 0) ::close(fd_);
      throw IOError(path + (err == ENOENT ? ": no such file" : ": cannot open: " + std::string(std::strerror(err))));
    }
    try {
      if (S_ISDIR(st.st_mode)) throw IOError(path + ": is a directory, expected a file");
      size_ = static_cast<uint64_t>(st.st_size);
      if (size_ == 0) throw IOError(path + ": the file is empty (0 bytes), not an HDF5 file");
      std::vector<uint8_t> head(std::min<uint64_t>(size_, 8));
      if (!read_at(0, head.data(), head.size()) || !looks_like_hdf5(head))
        throw IOError(path + ": not an HDF5 file (bad signature)");
      check_declared_size(size_, size_, path);
    } catch (...) {
      ::close(fd_);
      throw;
    }
  }
  ~SandboxFile() {
    if (map_ != MAP_FAILED) munmap(map_, size_);
    ::close(fd_);
  }
  SandboxFile(const SandboxFile&) = delete;
  SandboxFile& operator=(const SandboxFile&) = delete;
  int fd() const { return fd_; }
  std::size_t size() const { return static_cast<std::size_t>(size_); }
  /// A read-only mapping of the file, made on first use (only a forked child reads it).
  const uint8_t* mapping(const std::string& path) {
    if (map_ == MAP_FAILED) map_ = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (map_ == MAP_FAILED) throw IOError(path + ": cannot map the file: " + std::strerror(errno));
    return static_cast<const uint8_t*>(map_);
  }
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
  int fd_ = -1;
  uint64_t size_ = 0;
  void* map_ = MAP_FAILED;
};

/// The bytes of an in-memory image as a sealed memory file, for the reader program.
class MemoryFile {
 public:
  MemoryFile(const std::vector<uint8_t>& bytes, const std::string& name) {
    fd_ = memfd_create("kiln-h5-image", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd_ < 0) throw IOError(name + ": cannot start the HDF5 sandbox: " + std::strerror(errno));
    for (std::size_t at = 0; at < bytes.size();) {
      const ssize_t w = ::write(fd_, bytes.data() + at, bytes.size() - at);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        const int err = errno;
        ::close(fd_);
        throw IOError(name + ": cannot start the HDF5 sandbox: " + std::strerror(err));
      }
      at += static_cast<std::size_t>(w);
    }
    fcntl(fd_, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
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
  std::unique_ptr<MemoryFile> memory;
  const ChildInput in{bytes.size(), [&] { return bytes.data(); },
                      [&] {
                        memory = std::make_unique<MemoryFile>(bytes, name);
                        return memory->fd();
                      }};
  return run_sandbox(in, name, limits, fetch);
}

H5File open_untrusted_h5(const std::string& path, const H5SandboxLimits& limits) {
  SandboxFile file(path);
  const RawFetch fetch = [&](const std::vector<RawRead>& reads) {
    fetch_all(reads, path, file.size(),
              [&](uint64_t offset, uint8_t* dst, std::size_t n) { return file.read_at(offset, dst, n); });
  };
  const ChildInput in{file.size(), [&] { return file.mapping(path); }, [&] { return file.fd(); }};
  return run_sandbox(in, path, limits, fetch);
}

std::string h5_reader_program() {
  if (const char* env = std::getenv("KILN_H5_READER")) return env;
  const std::string dir = plugins::library_folder();
  if (dir.empty()) return "";
  std::string path = dir + "/kiln/kiln-h5-reader";
  return access(path.c_str(), X_OK) == 0 ? path : "";
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
