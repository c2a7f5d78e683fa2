#pragma once
// The hostile-file check (the CTest hostile_files): the corpus under
// CORPUS_ROOT plus `per_file` deterministic truncations and byte flips of
// every valid file of each format (.keras, legacy .h5, .weights.h5,
// checkpoints, .npz/.npy/idx, SavedModel files, JSON configs), each through
// its fuzz target with the default load options.
#include <string>

namespace kiln_fuzz {
/// Returns 0 when every input loaded or threw kiln::Error, 1 otherwise (a
/// main()'s exit code); a signal names the input on stderr and kills the process.
int hostile_check(const std::string& corpus_root, int per_file);
}  // namespace kiln_fuzz
