#pragma once
// Private (framework/src/io): crash-safe replacement of a whole folder (a
// SavedModel). The new version is written to a temporary folder next to the
// destination, every file and folder in it is fsync'ed, and then it trades
// places with the old version in one renameat2(RENAME_EXCHANGE) call, so a
// process killed at any point leaves the destination holding either the old
// version or the new one, complete. Leftovers of a killed save (temporary
// folders ".<name>.tmp-<pid>-<n>") are removed by the next save, once it is in.
#include <functional>
#include <string>

namespace kiln::io {

/// Calls `write(tmp_dir)` on a fresh, empty folder, then syncs it and swaps it
/// in for `path`. If `write` throws, the temporary folder is removed and the
/// exception propagates; `path` is untouched. Refuses (IOError) to replace a
/// file, or a non-empty folder without `marker_file` in it (a folder the
/// caller did not save), so a wrong path never deletes someone's data.
void atomic_write_dir(const std::string& path, const std::string& marker_file,
                      const std::function<void(const std::string& tmp_dir)>& write);

namespace testing {
/// Test hook: called before each step of atomic_write_dir's commit (every
/// fsync, rename, exchange and unlink), with the step's name, so a test can
/// kill the process at each step in turn. Pass nullptr to remove it.
void set_commit_step_hook(std::function<void(const std::string& step)> hook);
/// Test hook: makes the exchange fail as on a file system without
/// RENAME_EXCHANGE (NFS, for one), so the two-rename fallback runs.
void set_exchange_unsupported(bool unsupported);
}  // namespace testing

}  // namespace kiln::io
