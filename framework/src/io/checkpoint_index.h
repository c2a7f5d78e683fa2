#pragma once
// The "checkpoint" index file of a checkpoint folder (TensorFlow's
// CheckpointState, as JSON): the latest path and all kept paths. Entries are
// file names relative to the folder, as TensorFlow writes them.
#include <string>
#include <vector>

namespace kiln::io {

/// The recorded checkpoints that still exist, oldest first, as paths under `dir`
/// (an older index's working-folder-relative or absolute entries are kept as they are).
std::vector<std::string> read_checkpoint_index(const std::string& dir);
/// Writes the index atomically; the last path is the latest.
void write_checkpoint_index(const std::string& dir, const std::vector<std::string>& paths);

}  // namespace kiln::io
