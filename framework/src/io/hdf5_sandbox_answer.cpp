// Reading the sandboxed child's answer (hdf5_sandbox_answer.h).
#include "io/hdf5_sandbox_answer.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>

#include "kiln/core/error.h"
#include "kiln/core/limits.h"

namespace kiln::io::sandbox {

AnswerBuffer::~AnswerBuffer() { std::free(data_); }

uint8_t* AnswerBuffer::extend(std::size_t n, const std::string& name) {
  if (size_ + n > capacity_) {
    const std::size_t cap = std::max(size_ + n, capacity_ + capacity_ / 2);
    void* p = std::realloc(data_, cap);
    if (!p) throw IOError(name + ": out of memory reading the sandboxed HDF5 reader's answer");
    data_ = static_cast<uint8_t*>(p);
    capacity_ = cap;
  }
  uint8_t* at = data_ + size_;
  size_ += n;
  return at;
}

void AnswerBuffer::reserve(std::size_t n) {
  if (n <= capacity_) return;
  if (void* p = std::realloc(data_, n)) {
    data_ = static_cast<uint8_t*>(p);
    capacity_ = n;
  }
}

AnswerReader::AnswerReader(int fd, pid_t pid, const std::string& name, int64_t wall_seconds)
    : fd_(fd), pid_(pid), name_(name), wall_seconds_(wall_seconds),
      deadline_(std::chrono::steady_clock::now() + std::chrono::seconds(wall_seconds)) {}

void AnswerReader::stop(const std::string& why) {
  kill(pid_, SIGKILL);
  throw IOError(name_ + ": the sandboxed HDF5 reader " + why);
}

bool AnswerReader::read_exact(void* dst, std::size_t n) {
  auto* p = static_cast<uint8_t*>(dst);
  while (n > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
    pollfd pf{fd_, POLLIN, 0};
    const int r = left.count() > 0 ? poll(&pf, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30))) : 0;
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) stop("did not finish within " + std::to_string(wall_seconds_) + " s; it was stopped");
    const ssize_t got = ::read(fd_, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<std::size_t>(got);
  }
  return true;
}

uint64_t max_answer_bytes() { return static_cast<uint64_t>(max_read_bytes()) + (uint64_t{256} << 20); }

bool AnswerReader::next(Answer& a) {
  const uint64_t cap = max_answer_bytes();
  uint32_t len = 0;
  if (a.ended || !read_exact(&len, sizeof len)) {
    a.ended = true;
    return false;
  }
  if (len == 0 || len == kErrorFrame) {
    a.ended = true;
    a.done = len == 0;
    uint32_t n = 0;
    if (len == kErrorFrame && read_exact(&n, sizeof n) && n <= 4096) {
      a.error.resize(n);
      if (!read_exact(a.error.data(), n)) a.error.clear();
    }
    return false;
  }
  if (a.snapshot.size() + len > cap) stop("returned more than " + std::to_string(cap) + " bytes");
  if (!read_exact(a.snapshot.extend(len, name_), len)) {
    a.ended = true;
    return false;
  }
  return true;
}

}  // namespace kiln::io::sandbox
