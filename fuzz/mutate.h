#pragma once
// fuzz_replay --mutate (mutate.cpp): random mutations of a target's corpus, for a CPU-time budget.
#include <cstdint>
#include <filesystem>

#include "fuzz_targets.h"

namespace kiln_fuzz {

/// Runs mutated corpus inputs through `t` until `cpu_budget` CPU seconds (with
/// children) are used; returns 0 if none let a non-Kiln exception escape.
int mutate_campaign(const Target& t, const std::filesystem::path& corpus, double cpu_budget, uint64_t seed,
                    const std::filesystem::path& out);

}  // namespace kiln_fuzz
