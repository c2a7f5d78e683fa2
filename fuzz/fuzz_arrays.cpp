// Array files: .npz archives, .npy arrays and idx (MNIST) files.
#include <span>

#include "fuzz_targets.h"
#include "kiln/datasets/idx.h"
#include "kiln/datasets/npy.h"
#include "kiln/datasets/npz.h"

namespace kiln_fuzz {

void arrays(const uint8_t* data, std::size_t size) {
  if (size < 1) return;
  const std::span<const uint8_t> body(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0: kiln::datasets::load_npz(scratch_file(body.data(), body.size(), "arrays.npz")); break;
    case 1: kiln::datasets::parse_npy(body, "fuzz.npy"); break;
    default: kiln::datasets::parse_idx(body, "fuzz-idx3-ubyte"); break;
  }
}

}  // namespace kiln_fuzz
