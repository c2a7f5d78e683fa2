#pragma once
// Limits on what a file may make Kiln allocate or recurse into. Kiln reads
// files people download (.keras, .h5, .npz/.npy, idx, JSON configs), so every
// reader checks the sizes a file declares before allocating:
//   - against the file's actual size (a stored zip member, a .npy body or an
//     uncompressed HDF5 dataset cannot hold more bytes than the file has;
//     deflate cannot expand more than about 1032:1), and
//   - against max_read_bytes(), one ceiling for any single array, member or
//     JSON text read from a file.
// JSON values nested deeper than kMaxJsonDepth levels are rejected at parse
// time, before recursive code (copies, dump()) could overflow the stack.
//
// The ceiling defaults to 8 GiB. The environment variable KILN_MAX_ALLOC_BYTES
// (a byte count, read once at first use) or set_max_read_bytes() changes it:
//
//   kiln::set_max_read_bytes(int64_t{1} << 30);   // refuse any array over 1 GiB
//   auto data = kiln::datasets::load_npz("untrusted.npz");   // IOError if one is larger
#include <cstdint>
#include <string>

namespace kiln {

/// Keras configs nest a few dozen levels at most; Python's json module stops near 1000.
inline constexpr int kMaxJsonDepth = 512;

/// The most bytes one array, archive member or JSON text read from a file may need.
int64_t max_read_bytes();
/// Sets the ceiling for this process (bytes > 0); overrides KILN_MAX_ALLOC_BYTES.
void set_max_read_bytes(int64_t bytes);

/// Throws IOError "<what>: declares N bytes, but ..." when `declared` exceeds
/// `available` (what the file can actually hold) or max_read_bytes().
void check_declared_size(uint64_t declared, uint64_t available, const std::string& what);

}  // namespace kiln
