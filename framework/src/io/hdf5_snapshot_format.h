#pragma once
// Private to the snapshot's encoder (hdf5_snapshot_write.cpp) and decoder
// (hdf5_snapshot.cpp): what both sides of the byte format agree on.
#include <cstdint>

#include "io/hdf5_snapshot.h"
#include "kiln/core/limits.h"

namespace kiln::io::snapshot_format {

enum class Tag : uint8_t { group = 1, dataset = 2 };
/// Set in a dataset's data code (dtype + 1) when the values are not in the
/// encoding but at an offset of the file the reader holds.
inline constexpr uint8_t kByReference = 0x80;
inline constexpr char kMagic[8] = {'K', 'I', 'L', 'N', 'H', '5', 'S', '1'};

inline uint64_t tensor_bytes(const Tensor& t) {
  return t.defined() ? static_cast<uint64_t>(t.shape().num_elements()) * dtype_size(t.dtype()) : 0;
}

inline uint64_t byte_budget(const H5SnapshotLimits& l) {
  return l.max_bytes ? l.max_bytes : static_cast<uint64_t>(max_read_bytes());
}

}  // namespace kiln::io::snapshot_format
