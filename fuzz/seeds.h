#pragma once
// Seed inputs that Kiln writes itself for the targets whose fixtures in the
// tree do not fit (the fixed model's weights, checkpoints, snapshots, arrays).
#include <string>

namespace kiln_fuzz {
/// Writes DIR/<target>/kiln_*; returns 0 on success (a main()'s exit code).
int write_seeds(const std::string& dir);
}  // namespace kiln_fuzz
