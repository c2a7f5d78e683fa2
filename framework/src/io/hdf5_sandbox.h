#pragma once
// Private to framework/src/io: reading HDF5 files that may be hostile.
//
// libhdf5 1.10 (Debian 12's) is not memory-safe on crafted files: it has
// published, unfixed CVEs and crashes found by fuzzing. Validating HDF5's
// format before libhdf5 sees it would mean reimplementing most of it, and a
// newer libhdf5 is neither a Debian 12 package nor free of such bugs. So an
// untrusted file is parsed by libhdf5 in a child process that
//   - is forked from the caller and reads the file's bytes from memory (a
//     read-only mapping the parent made, or a .keras member),
//   - runs under a seccomp filter that allows only memory management, reading
//     and writing already-open descriptors and exiting (no open, exec,
//     socket, kill or ptrace), with no_new_privs,
//   - has every descriptor but its result pipe and stdout/stderr closed,
//   - has address-space, CPU-time and file-size limits (setrlimit), and dies
//     with its parent,
// and streams back a snapshot of the file (hdf5_snapshot.h) that the parent
// decodes with its own bounds-checked parser. A crash, hang or exploit inside
// libhdf5 stays in the child; the caller gets an IOError naming the file.
//
// Cost: the child reads a mapping of the file in place, and sends datasets
// stored as plain little-endian values as offsets; the parent decodes the
// answer as it arrives, checks each range against the file and copies the
// values itself (pread) while the child walks on, so the weights are copied
// once, as a trusted load copies them.
#include <cstdint>
#include <string>
#include <vector>

#include "io/hdf5_file.h"

namespace kiln::io {

/// Crafted files can make libhdf5 loop forever (a cycle in a group's B-tree),
/// so the child's time is bounded. Reading an image and copying it out costs
/// well under a second per 100 MB, so the bounds grow with the file's size.
struct H5SandboxLimits {
  int cpu_seconds = 10;       // the child's CPU-time limit (RLIMIT_CPU), plus 1 s per 32 MiB
  int min_wall_seconds = 60;  // the parent kills the child after this long, or 4x the CPU limit
};

/// The file at `path` opened through the sandbox: a read-only H5File over a
/// snapshot. Throws IOError naming the file when it cannot be read, when the
/// child fails or is killed, or when the child's answer is malformed.
H5File open_untrusted_h5(const std::string& path, const H5SandboxLimits& limits = {});
/// The same for HDF5 bytes already in memory (a .keras member).
H5File untrusted_h5_from_image(const std::vector<uint8_t>& bytes, const std::string& name,
                               const H5SandboxLimits& limits = {});

/// The program the sandbox runs as its child: the path in KILN_H5_READER when
/// that is set (empty: none), else kiln/kiln-h5-reader beside libkiln when it
/// is there. "" means the child is forked from the loading process instead.
std::string h5_reader_program();

/// True when the environment variable KILN_TRUST_FILES is "1": every HDF5
/// file is then read in the process, as if each load said trusted = true.
bool files_trusted_by_environment();

/// H5File::open / H5File::from_image when `trusted` or
/// files_trusted_by_environment(), the sandbox otherwise. Every HDF5 read of a
/// file the library did not just create goes through one of these two.
H5File open_h5(const std::string& path, bool trusted);
H5File h5_from_image(const std::vector<uint8_t>& bytes, const std::string& name, bool trusted);

}  // namespace kiln::io
