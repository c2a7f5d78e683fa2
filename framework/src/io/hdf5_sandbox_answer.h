#pragma once
// Private to hdf5_sandbox.cpp: the sandboxed child's answer on its pipe. The
// child writes frames, each a u32 length and that many bytes of the snapshot's
// encoding (hdf5_snapshot.h), streamed as it walks the file; then a u32 0
// (done), or kErrorFrame, a u32 length and a message. The parent reads them
// with a deadline, and kills the child when it is too slow or sends too much.
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::io::sandbox {

inline constexpr uint32_t kMaxFrame = uint32_t{1} << 30;
inline constexpr uint32_t kErrorFrame = ~uint32_t{0};

/// Memory for the answer that grows without zero-filling what the pipe is
/// about to overwrite (realloc moves large blocks by remapping them).
class AnswerBuffer {
 public:
  AnswerBuffer() = default;
  ~AnswerBuffer();
  AnswerBuffer(const AnswerBuffer&) = delete;
  AnswerBuffer& operator=(const AnswerBuffer&) = delete;
  uint8_t* data() { return data_; }
  std::size_t size() const { return size_; }
  /// Room for `n` more bytes at the end; returns where they go.
  uint8_t* extend(std::size_t n, const std::string& name);
  void reserve(std::size_t n);

 private:
  uint8_t* data_ = nullptr;
  std::size_t size_ = 0, capacity_ = 0;
};

/// The child's answer: the snapshot's encoding, its error message, and whether
/// it said it was done (else it died part way).
struct Answer {
  AnswerBuffer snapshot;
  std::string error;
  bool done = false;
  bool ended = false;  // no more frames will be read
};

/// The most bytes an answer may have: the read limit, and room for the structure.
uint64_t max_answer_bytes();

/// Reads the child's pipe until its end, or kills the child (IOError) when it
/// is too slow or sends more than the read limit allows.
class AnswerReader {
 public:
  AnswerReader(int fd, pid_t pid, const std::string& name, int64_t wall_seconds);
  /// Reads the next frame into `a`: true when it appended bytes to the
  /// snapshot, false at the end (done, an error message, or the child gone).
  bool next(Answer& a);

 private:
  bool read_exact(void* dst, std::size_t n);
  [[noreturn]] void stop(const std::string& why);
  int fd_;
  pid_t pid_;
  const std::string& name_;
  int64_t wall_seconds_;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace kiln::io::sandbox
