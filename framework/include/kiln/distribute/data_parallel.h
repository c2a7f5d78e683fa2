#pragma once
// Data-parallel training across processes and machines, with the semantics of
// tf.distribute.MirroredStrategy / MultiWorkerMirroredStrategy. One line in a
// program turns it on; the program then runs under `mpirun -np N`:
//
//   kiln::distribute::DataParallel strategy;   // before compile()
//   model.compile(...);
//   model.fit(x, y, {.batch_size = 64});        // 64 is the global batch
//
// What fit(), evaluate() and the callbacks then do:
//  * the variables (and a restored optimizer's state, and the random
//    generator) are broadcast from rank 0 when fit starts, after the callbacks'
//    on_train_begin (so BackupAndRestore's restored state wins);
//  * each rank takes its own contiguous part of every global batch;
//  * gradients are averaged across ranks, in buckets launched as the backward
//    pass finishes them (reverse layer order), so communication overlaps it;
//  * metric states are summed across ranks, so logs and evaluate() are global;
//  * only rank 0 draws the progress bar and writes ModelCheckpoint,
//    BackupAndRestore, CSVLogger and TensorBoard files;
//  * ranks whose models, batch sizes or dtypes differ fail at fit's start;
//  * a rank that fails makes the others fail with its message, and a rank that
//    stops answering makes the others fail after the timeout, naming it.
// Without an MPI launcher the same program runs as a group of one.
#include <optional>
#include <string>
#include <vector>

#include "kiln/autodiff/variable.h"
#include "kiln/core/error.h"
#include "kiln/core/tensor.h"

namespace kiln::distribute {

/// A collective that failed: a peer failed, stopped answering, or the transport broke.
class DistributedError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

/// How a collective combines the ranks' values.
enum class ReduceOp { Sum, Mean, Max, Min };

/// Options of DataParallel.
struct DataParallelOptions {
  /// "auto" or "mpi" (MPI for every collective), or "nccl": gradients of a
  /// model on a GPU all-reduced by NCCL on its own stream, one process per GPU.
  std::string communication = "auto";
  /// Seconds a collective may wait before the peers are probed and the
  /// training fails (default 300, or KILN_COLLECTIVE_TIMEOUT).
  std::optional<double> timeout;
  /// Gradient bucket sizes, as PyTorch DDP's bucket_cap_mb (the first bucket
  /// is smaller, so communication starts early in the backward pass).
  double bucket_cap_mb = 25.0;
  double first_bucket_cap_mb = 1.0;  ///< Size of the first gradient bucket, in MB.
};

/// Data-parallel training across processes (tf.distribute.MultiWorkerMirroredStrategy's
/// semantics): each rank trains on its part of every batch; gradients are averaged.
class DataParallel {
 public:
  /// Joins the process group and enters the strategy's scope: fit() then runs data-parallel.
  explicit DataParallel(DataParallelOptions options = {});
  /// Leaves the strategy's scope; fit() runs on one process again.
  ~DataParallel();
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  /// This process's rank, 0 .. num_replicas_in_sync() - 1.
  int rank() const;
  /// The number of processes training together.
  int num_replicas_in_sync() const;
  /// Rank 0, which writes files and prints.
  bool is_chief() const { return rank() == 0; }
  /// The options given.
  const DataParallelOptions& options() const { return options_; }
  /// "2 processes over Open MPI v4.1.4".
  std::string describe() const;

  /// Makes every rank's variables equal to rank `root`'s.
  void broadcast_variables(const std::vector<Variable>& vars, int root = 0) const;
  /// Every rank's `x` combined element-wise (same shape on every rank).
  /// Differentiable for Sum and Mean: the gradient is the same reduction of
  /// the ranks' upstream gradients (as Horovod's allreduce).
  Tensor all_reduce(const Tensor& x, ReduceOp op = ReduceOp::Sum) const;
  /// Throws DistributedError on every rank unless all ranks passed the same
  /// `facts` (name, value pairs); the error names the first difference.
  void check_same(const std::vector<std::pair<std::string, std::string>>& facts, const std::string& where) const;

  /// Seconds this process has spent blocked on collectives: communication
  /// the backward pass did not hide.
  double communication_wait_seconds() const;

 private:
  DataParallelOptions options_;
  DataParallel* previous_;
};

/// The DataParallel in scope in this process, or null (tf.distribute.get_strategy()).
DataParallel* current_strategy();

/// Whether NCCL can reduce gradients here: the CUDA plugin was built with it
/// and loads. Otherwise false, with the reason in `why`.
bool nccl_available(std::string* why = nullptr);

/// Whether this process prints and writes files: without a strategy, or on rank 0.
bool is_chief();

/// all_reduce under the current strategy; `x` itself without one.
Tensor all_reduce(const Tensor& x, ReduceOp op = ReduceOp::Sum);

/// The weight of this rank's gradients in the global step: its share of the
/// global batch (1 / ranks for equal shares). fit() sets it for each batch.
void set_local_batch_share(double share);
double local_batch_share();  ///< This rank's share of the global batch (see set_local_batch_share()).

}  // namespace kiln::distribute
