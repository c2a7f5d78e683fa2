#pragma once
// Private (framework/src/training): the epoch iterator decides which batches
// each epoch (or evaluation, validation or prediction run) gets: it owns
// steps_per_epoch / steps / validation_steps and when a pass over the data
// starts. fit()'s validation arguments (validation_data, validation_dataset,
// validation_split) are read here only, by take_validation_arrays() and
// validation_iterator(), whatever the training data.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "kiln/training/model.h"
#include "training/data_adapter.h"

namespace kiln::training {

class EpochIterator {
 public:
  /// fit()'s training epochs: at most `steps_per_epoch` batches each; a
  /// Dataset's pass then runs on into the next epoch (see DataAdapter).
  static EpochIterator for_training(std::shared_ptr<const DataAdapter> adapter, std::optional<int> steps_per_epoch);
  /// Evaluation, validation and prediction: every run is a new pass, cut to `steps` batches.
  static EpochIterator for_runs(std::shared_ptr<const DataAdapter> adapter, std::optional<int> steps);

  /// The steps callbacks are told an epoch has (CallbackParams::steps).
  int num_steps() const { return adapter_->steps(steps_); }
  /// Makes each batch on a worker thread and copies it to `device` ahead of
  /// its step (prefetch_to_device), when `device` is a GPU and no pass carries
  /// over between epochs; otherwise batches are made when asked for.
  void prefetch_to(Device device) { prefetch_to_ = device; }

  /// Calls `step(index, batch)` for each batch of one epoch, until the steps or
  /// the data run out or `step` returns false. Returns the batches run.
  int run_epoch(const std::function<bool(int, const Batch&)>& step);
  /// The same in groups of up to `k` batches (steps_per_execution): calls
  /// `step(first, last, batches)` with the indexes of the group's first and
  /// last batch; the epoch's last group may be shorter.
  int run_epoch_in_groups(int k, const std::function<bool(int, int, const std::vector<Batch>&)>& step);

 private:
  EpochIterator(std::shared_ptr<const DataAdapter> adapter, std::optional<int> steps, bool resume);

  std::shared_ptr<const DataAdapter> adapter_;
  std::optional<int> steps_;
  bool resume_;      // an unfinished pass continues in the next epoch
  BatchPull pass_;   // the pass in progress, if any
  std::optional<Device> prefetch_to_;
};

/// The arrays fit() validates on: validation_data, or else (arrays training
/// data only, `train` non-null) the last validation_split of `train`, which
/// then keeps the rest. std::nullopt without validation arrays.
std::optional<Arrays> take_validation_arrays(const Model& model, const FitOptions& options, Arrays* train);

/// fit()'s validation runs: `arrays` (from take_validation_arrays) or
/// options.validation_dataset, cut to validation_steps. std::nullopt without validation.
std::optional<EpochIterator> validation_iterator(const Model& model, const FitOptions& options,
                                                 std::optional<Arrays> arrays);

/// Throws when `adapter` never ends and no step count bounds it.
void require_finite(const DataAdapter& adapter, const std::optional<int>& steps, const std::string& message);

}  // namespace kiln::training
