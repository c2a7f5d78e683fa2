#pragma once
// Private to framework/src/io: the sandboxed side of the HDF5 sandbox
// (hdf5_sandbox.h). It runs in a child process, started either as the small
// program kiln-h5-reader (h5_reader_main.cpp, beside libkiln) or, where that
// program is not installed, by forking the loading process.
#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::io::sandbox {

/// The child writes its answer to this descriptor; the program reads the file
/// from the second.
inline constexpr int kAnswerFd = 3;
inline constexpr int kFileFd = 4;

/// Confines the calling process (resource limits, seccomp), parses the `size`
/// bytes at `data` with libhdf5, streams the snapshot (or the error) to
/// kAnswerFd, and exits. Descriptors other than 0-2 and kAnswerFd must already
/// be closed. `cpu_seconds` bounds the child's CPU time.
[[noreturn]] void serve(const uint8_t* data, std::size_t size, const std::string& name, int64_t cpu_seconds);

/// Closes every descriptor from `first` up.
void close_from(int first);

}  // namespace kiln::io::sandbox
