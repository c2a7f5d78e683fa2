#pragma once
// Private: what fit() and evaluate() do differently under a DataParallel
// strategy with more than one process (kiln/distribute/data_parallel.h).
// Without one every function here is a no-op, so the loops read the same.
#include <exception>
#include <string>

#include "kiln/distribute/data_parallel.h"
#include "kiln/training/model.h"

namespace kiln::training {

/// The strategy in scope when it spans several processes (or asked for NCCL,
/// which then runs even in one process), else null.
distribute::DataParallel* active_strategy();

/// At fit's start, after the callbacks' on_train_begin: fails unless every
/// rank has the same model and arguments, then makes rank 0's variables,
/// optimizer state, random generator and first epoch everyone's.
void sync_at_fit_start(Model& model, const FitOptions& options, int steps_per_epoch, int& first_epoch);

/// Whether this rank takes part in a global batch of `rows` rows (every rank
/// does, unless the batch has fewer rows than there are ranks).
bool batch_usable(const Batch& global);
/// This rank's contiguous share of a global batch; sets its gradient weight.
Batch local_shard(const Batch& global);

/// Logs whose metric values come from the metric states summed across ranks,
/// and whose other values are averaged across ranks.
Logs global_logs(Model& model, const Logs& local);

/// Tells the other ranks that this one failed with `e` (unless the failure
/// came from them), so they stop at once instead of waiting for it.
void report_failure(const std::exception& e);

}  // namespace kiln::training
